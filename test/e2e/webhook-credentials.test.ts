import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/adapters/crypto/secret-box.js';
import { createContext, createLogger } from '../../src/context.js';
import { upgradeStoredData } from '../../src/upgrades.js';
import { PLUGIN_SECRETS_PURPOSE, pluginSecretAad } from '../../src/services/plugins/plugin.service.js';
import { rotateAllSecrets } from '../../src/secret-key-rotation.js';
import { credentialAad, WEBHOOK_CREDENTIALS_PURPOSE } from '../../src/services/projects/webhook-credentials.js';
import { openPctSecret } from '../../src/services/projects/pct-validation-secret.js';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import {
  createProject,
  HOOK_ENV,
  hookWorkflow,
  importAssets,
  startDeliveryWorker,
  waitForStage,
} from '../helpers/webhooks.js';

/**
 * Webhook stage credentials are write-only and sealed: never answered, kept
 * across a read-modify-write of the stages, sealed at rest, still signing deliveries, sealed on
 * upgrade when an older version stored them in plain text, and re-sealed by key rotation.
 */

const SECRET = 'hook-secret-never-answered';
const TOKEN = 'hook-token-never-answered';

describe.each(ENGINES)('webhook credentials on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker;
  const receivers: Receiver[] = [];
  const receiver = async (opts: Parameters<typeof startReceiver>[0] = {}) => {
    const r = await startReceiver(opts);
    receivers.push(r);
    return r;
  };
  const storedStages = async (id: string) =>
    (await t.store.db.selectFrom('projects').select('stages').where('id', '=', id).executeTakeFirstOrThrow()).stages;
  const hookOf = async (id: string) => {
    const res = await t.call('GET', `/v2/project/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const stages = res.json().data.project.stages as { id: string; webhook?: Record<string, unknown> }[];
    return { body: res.body, stages, hook: stages.find((s) => s.id === 'Hook')!.webhook! };
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: HOOK_ENV });
    worker = startDeliveryWorker(t);
  });
  afterAll(async () => {
    await worker.stop();
    for (const r of receivers) await r.close();
    await t.close();
  });

  it('never answers a credential, stores it sealed, and keeps it across a read-modify-write', async () => {
    const r = await receiver({ secret: SECRET });
    const id = await createProject(t, hookWorkflow({ url: r.url, authType: 'secret', secret: SECRET }));
    const read = await hookOf(id);
    expect(read.body).not.toContain(SECRET);
    expect(read.hook).toMatchObject({ authType: 'secret', hasSecret: true });
    expect(read.hook).not.toHaveProperty('secret');
    expect(read.hook).not.toHaveProperty('sealedSecret');
    const stored = await storedStages(id);
    expect(stored).not.toContain(SECRET);
    expect(stored).toMatch(/"sealedSecret":"v1\.[0-9a-f]{8}\./);

    // The stages sent back as they were answered (one name changed): the secret stays.
    const edited = read.stages.map((s) => (s.id === 'Hook' ? { ...s, name: 'Renamed' } : s));
    const write = await t.call('POST', `/v2/project/${id}`, { body: { stages: edited } });
    expect(write.statusCode, write.body).toBe(200);
    expect(write.body).not.toContain(SECRET);
    expect((await hookOf(id)).hook).toMatchObject({ hasSecret: true });

    // A client cannot smuggle a sealed value or a has-flag in.
    const forged = read.stages.map((s) =>
      s.id === 'Hook'
        ? { ...s, webhook: { ...s.webhook, authType: 'bearer_token', sealedToken: 'v1.x', hasToken: true } }
        : s,
    );
    const refused = await t.call('POST', `/v2/project/${id}`, { body: { stages: forged } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain('stages[1].webhook.token');

    const [taskId] = await importAssets(t, id, [{ data: 'https://cdn.example.com/a.jpg', externalId: 'a' }]);
    await waitForStage(t, taskId as string, 'Complete');
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.signatureValid).toBe(true);
  });

  it('replaces a credential that is sent, and drops one the authType does not use', async () => {
    const r = await receiver();
    const id = await createProject(t, hookWorkflow({ url: r.url, authType: 'bearer_token', token: 'old-token' }));
    const { stages } = await hookOf(id);
    const withNew = stages.map((s) => (s.id === 'Hook' ? { ...s, webhook: { ...s.webhook, token: TOKEN } } : s));
    expect((await t.call('POST', `/v2/project/${id}`, { body: { stages: withNew } })).statusCode).toBe(200);
    const [taskId] = await importAssets(t, id, [{ data: 'https://cdn.example.com/b.jpg', externalId: 'b' }]);
    await waitForStage(t, taskId as string, 'Complete');
    expect(r.received[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const noAuth = stages.map((s) => (s.id === 'Hook' ? { ...s, webhook: { ...s.webhook, authType: 'no_auth' } } : s));
    expect((await t.call('POST', `/v2/project/${id}`, { body: { stages: noAuth } })).statusCode).toBe(200);
    expect(await storedStages(id)).not.toContain('sealedToken');
    expect((await hookOf(id)).hook).not.toHaveProperty('hasToken');
  });

  it('seals credentials an older version stored in plain text, and they still sign', async () => {
    const r = await receiver({ secret: SECRET });
    const id = await createProject(t, hookWorkflow({ url: r.url }));
    const plain = JSON.stringify(hookWorkflow({ url: r.url, authType: 'secret', secret: SECRET }));
    await t.store.db.updateTable('projects').set({ stages: plain }).where('id', '=', id).execute();
    // The start of a server, a worker or a command on this store runs the upgrade steps.
    const log = createLogger({ logLevel: 'silent' });
    const started = await createContext(t.ctx.config, { store: t.store, migrated: true, log });
    await upgradeStoredData(started);
    await started.close();
    const stored = await storedStages(id);
    expect(stored).not.toContain(SECRET);
    expect(stored).toContain('"sealedSecret"');
    expect((await hookOf(id)).hook).toMatchObject({ hasSecret: true });
    const [taskId] = await importAssets(t, id, [{ data: 'https://cdn.example.com/c.jpg', externalId: 'c' }]);
    await waitForStage(t, taskId as string, 'Complete');
    expect(r.received[0]!.signatureValid).toBe(true);
  });

  it('key rotation re-seals webhook credentials, plugin secrets and external validation secrets', async () => {
    const id = await createProject(
      t,
      hookWorkflow({ url: 'http://127.0.0.1:9/x', authType: 'secret', secret: SECRET }),
    );
    const plugin = await t.call('POST', '/v2/plugins', {
      body: { name: 'Model', url: 'https://models.example.com/detect', secret: 'plugin-secret' },
    });
    expect(plugin.statusCode, plugin.body).toBe(201);
    const pluginId = plugin.json().data.plugin._id as string;
    const pct = await t.call('POST', '/v2/project', {
      body: {
        name: 'Validated',
        type: 'pct',
        pctConfig: {
          externalValidation: { enabled: true, apiUrl: 'https://validator.example.com/check', secret: 'pct-secret' },
        },
      },
    });
    expect(pct.statusCode, pct.body).toBe(201);
    const pctId = pct.json().data.project._id as string;
    const pctSeal = async () => {
      const stored = await t.store.db
        .selectFrom('projects')
        .select('pct_config')
        .where('id', '=', pctId)
        .executeTakeFirstOrThrow();
      return (JSON.parse(stored.pct_config!) as { externalValidation: { sealedSecret: string } }).externalValidation
        .sealedSecret;
    };
    expect(openPctSecret(t.ctx.secretKey, pctId, await pctSeal())).toBe('pct-secret');

    const newKey = randomBytes(32);
    const first = await t.store.db.transaction().execute((trx) => rotateAllSecrets(trx, t.ctx.secretKey, newKey));
    expect(first.plugins.rotated).toBeGreaterThanOrEqual(1);
    expect(first.webhooks.rotated).toBeGreaterThanOrEqual(1);
    const again = await rotateAllSecrets(t.store.db, t.ctx.secretKey, newKey);
    expect(again.plugins).toEqual({ rotated: 0, alreadyRotated: first.plugins.rotated + first.plugins.alreadyRotated });
    expect(again.webhooks.rotated).toBe(0);
    expect(first.pctValidation.rotated).toBeGreaterThanOrEqual(1);
    expect(again.pctValidation).toEqual({
      rotated: 0,
      alreadyRotated: first.pctValidation.rotated + first.pctValidation.alreadyRotated,
    });
    const resealed = await pctSeal();
    expect(openPctSecret(newKey, pctId, resealed)).toBe('pct-secret');
    expect(() => openPctSecret(t.ctx.secretKey, pctId, resealed)).toThrow();

    const stages = JSON.parse(await storedStages(id)) as { id: string; webhook?: { sealedSecret?: string } }[];
    const sealed = stages.find((s) => s.id === 'Hook')!.webhook!.sealedSecret!;
    const hooks = new SecretBox(newKey, WEBHOOK_CREDENTIALS_PURPOSE);
    expect(hooks.open(sealed, credentialAad(id, 'Hook', 'secret'))).toBe(SECRET);
    const row = await t.store.db
      .selectFrom('plugins')
      .select('secret')
      .where('id', '=', pluginId)
      .executeTakeFirstOrThrow();
    expect(new SecretBox(newKey, PLUGIN_SECRETS_PURPOSE).open(row.secret!, pluginSecretAad(pluginId))).toBe(
      'plugin-secret',
    );
    // Back to the key the server runs with, so the other tests of this store are unaffected.
    await rotateAllSecrets(t.store.db, newKey, t.ctx.secretKey);
  });
});
