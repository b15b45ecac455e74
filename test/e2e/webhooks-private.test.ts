import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import {
  createProject,
  hookWorkflow,
  importAssets,
  logsOf,
  stageStatus,
  startDeliveryWorker,
  taskOf,
} from '../helpers/webhooks.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Without ANNOTARY_WEBHOOK_ALLOW_PRIVATE, a destination on a loopback (private, link-local...)
 * address is refused: by its IP literal, and by the address its name resolves to when the
 * connection is made. The refusal is a failed attempt like any other: logged and warned.
 */
describe.each(ENGINES)('private webhook destinations on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker;
  let r: Receiver;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_JOB_RETRY_BASE_MS: '20' } });
    expect(t.ctx.config.webhookAllowPrivate).toBe(false);
    r = await startReceiver();
    worker = startDeliveryWorker(t);
  });
  afterAll(async () => {
    await worker.stop();
    await r.close();
    await t.close();
  });

  it('refuses 127.0.0.1 and a name resolving to loopback, sends nothing, logs and warns', async () => {
    const port = new URL(r.url).port;
    const byIp = await createProject(t, hookWorkflow({ url: `http://127.0.0.1:${port}/x`, retryCount: 1 }));
    const byName = await createProject(t, hookWorkflow({ url: `http://localhost:${port}/y`, retryCount: 0 }));
    const [a] = await importAssets(t, byIp, [{ data: 'https://cdn.example.com/s.jpg', externalId: 's' }]);
    const [b] = await importAssets(t, byName, [{ data: 'https://cdn.example.com/u.jpg', externalId: 'u' }]);
    await waitFor(async () => (await stageStatus(t, byIp, 'Hook')).warnings.length > 0, 'the IP refusal');
    await waitFor(async () => (await stageStatus(t, byName, 'Hook')).warnings.length > 0, 'the name refusal');

    expect(r.received).toEqual([]);
    expect((await stageStatus(t, byIp, 'Hook')).warnings).toEqual([
      expect.objectContaining({
        kind: 'webhook',
        failedCount: 1,
        lastError: 'refused: 127.0.0.1 is not a public address',
      }),
    ]);
    const ipLogs = (await logsOf(t, byIp)).logs.map((l) => l.line.replace(/^\[[^\]]+\]/, ''));
    expect(ipLogs).toEqual([
      '[refused: 127.0.0.1 is not a public address] s',
      '[refused: 127.0.0.1 is not a public address] s',
    ]);
    const [nameLog] = (await logsOf(t, byName)).logs;
    expect(nameLog?.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), not a public address$/);
    expect((await taskOf(t, a as string)).stage).toBe('Hook');
    expect((await taskOf(t, b as string)).stage).toBe('Hook');
  });

  it('refuses loopback and metadata addresses written in their NAT64 and 6to4 forms', async () => {
    // Polling the stage status below counts against the plan's limit, shared with the test above.
    const { setOrganizationPlan } = await import('../../src/services/identity/identity.service.js');
    await setOrganizationPlan(t.store.db, t.orgId, 'enterprise', 1_000_000);
    const port = new URL(r.url).port;
    const nat64 = await createProject(t, hookWorkflow({ url: `http://[64:ff9b::7f00:1]:${port}/n`, retryCount: 0 }));
    const sixToFour = await createProject(
      t,
      hookWorkflow({ url: `http://[2002:a9fe:a9fe::]:${port}/s`, retryCount: 0 }),
    );
    await importAssets(t, nat64, [{ data: 'https://cdn.example.com/n.jpg', externalId: 'n' }]);
    await importAssets(t, sixToFour, [{ data: 'https://cdn.example.com/m.jpg', externalId: 'm' }]);
    await waitFor(async () => (await stageStatus(t, nat64, 'Hook')).warnings.length > 0, 'the NAT64 refusal');
    await waitFor(async () => (await stageStatus(t, sixToFour, 'Hook')).warnings.length > 0, 'the 6to4 refusal');
    expect((await logsOf(t, nat64)).logs[0]?.error).toBe('refused: 64:ff9b::7f00:1 is not a public address');
    expect((await logsOf(t, sixToFour)).logs[0]?.error).toBe('refused: 2002:a9fe:a9fe:: is not a public address');
    expect(r.received).toEqual([]);
  });
});
