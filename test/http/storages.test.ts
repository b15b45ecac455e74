import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/adapters/crypto/secret-box.js';
import { loadConfig } from '../../src/config.js';
import { createContext, REDACTED_PATHS } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import {
  bootstrap,
  createOrganization,
  createUser,
  issueApiKey,
} from '../../src/services/identity/identity.service.js';
import { rotateStorageSecrets } from '../../src/services/storages/storage-key-rotation.js';
import { listFiles, STORAGE_SECRETS_PURPOSE, secretsAad } from '../../src/services/storages/storage.service.js';
import type { Principal } from '../../src/access.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeServiceAccount } from '../helpers/fake-servers.js';
import { ENGINES, makeStore } from '../helpers/stores.js';

/** Distinctive secrets: if any of them shows up anywhere, it leaked. */
function secretSet() {
  const tag = randomBytes(6).toString('hex');
  const sa = makeServiceAccount();
  return {
    awsSecret: `AwsSecretKey${tag}Zx9`,
    s3Secret: `CustomS3Secret${tag}Qw7`,
    azureKey: Buffer.from(`azure-account-key-${tag}`).toString('base64'),
    azureClientSecret: `AzureClientSecret${tag}Pp3`,
    gcp: sa.credentials,
    gcpKeyBody: sa.credentials.private_key.split('\n')[5] ?? '',
  };
}

/** Some bodies point at 127.0.0.1, as a MinIO on the private network would: the operator allows it. */
const ALLOW_PRIVATE = { ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' };

function storageBodies(s: ReturnType<typeof secretSet>) {
  return [
    { name: 'aws', provider: 'AWS', publicKey: 'AKIAEXAMPLE', privateKey: s.awsSecret },
    { name: 'minio', provider: 'CUSTOM_S3', host: 'http://127.0.0.1:9', publicKey: 'minio', privateKey: s.s3Secret },
    { name: 'gcs', provider: 'GCP', credentials: s.gcp },
    { name: 'azure', provider: 'AZURE', publicKey: 'acct01', privateKey: s.azureKey },
    {
      name: 'azure-sp',
      provider: 'AZURE',
      publicKey: 'acct02',
      azureAuthType: 'SERVICE_PRINCIPAL',
      azureTenantId: 'tenant.example.com',
      azureClientId: '00000000-0000-0000-0000-000000000001',
      azureClientSecret: s.azureClientSecret,
    },
    {
      name: 'delegated',
      provider: 'AWS',
      s3AccessType: 'IAM_DELEGATED',
      s3RoleArn: 'arn:aws:iam::123456789012:role/annotary',
    },
    {
      name: 'multi',
      provider: 'AZURE',
      publicKey: 'acct03',
      azureAuthType: 'MULTI_TENANT',
      azureTenantId: 'contoso.com',
    },
  ];
}

function secretsOf(s: ReturnType<typeof secretSet>): string[] {
  return [s.awsSecret, s.s3Secret, s.azureKey, s.azureClientSecret, s.gcpKeyBody, s.gcp.private_key];
}

describe.each(ENGINES)('storages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: ALLOW_PRIVATE });
  });
  afterAll(() => t.close());

  it('creates storages of every provider and never answers a secret', async () => {
    const s = secretSet();
    for (const body of storageBodies(s)) {
      const res = await t.call('POST', '/v2/storages', { body });
      expect(res.statusCode, res.body).toBe(201);
      for (const secret of secretsOf(s)) expect(res.body).not.toContain(secret);
      const storage = res.json().data.storage;
      expect(storage).toMatchObject({ name: body.name, provider: body.provider, organization: t.orgId });
      expect(storage._id).toMatch(/^[0-9a-f]{24}$/);
      expect(storage.createdBy).toBe('admin@annotary.local');
      expect(Date.parse(storage.createdAt)).not.toBeNaN();
      for (const field of ['privateKey', 'credentials', 'azureClientSecret']) expect(storage).not.toHaveProperty(field);
    }
    const list = await t.call('GET', '/v2/storages?limit=100');
    for (const secret of secretsOf(s)) expect(list.body).not.toContain(secret);
  });

  it('applies the per-provider defaults and rules', async () => {
    const aws = (
      await t.call('POST', '/v2/storages/', { body: { name: 'a', provider: 'AWS', publicKey: 'k', privateKey: 's' } })
    ).json().data.storage;
    expect(aws).toMatchObject({
      region: 'eu-central-1',
      s3AccessType: 'IAM_USER',
      useAccelerateEndpoint: false,
      publicKey: 'k',
    });

    const delegated = await t.call('POST', '/v2/storages', {
      body: {
        name: 'd',
        provider: 'AWS',
        region: 'us-west-2',
        s3AccessType: 'IAM_DELEGATED',
        s3RoleArn: 'arn:aws:iam::123456789012:role/x',
        useAccelerateEndpoint: true,
        azureTenantId: 'ignored-for-aws',
      },
    });
    expect(delegated.statusCode).toBe(201);
    const d = delegated.json().data.storage;
    expect(d).toMatchObject({ region: 'us-west-2', s3AccessType: 'IAM_DELEGATED', useAccelerateEndpoint: true });
    expect(d.s3ExternalId).toMatch(/^[0-9a-f]{32}$/);
    expect(d).not.toHaveProperty('azureTenantId');
    expect(d).not.toHaveProperty('publicKey');

    const custom = (
      await t.call('POST', '/v2/storages', {
        body: {
          name: 'c',
          provider: 'CUSTOM_S3',
          host: 'https://s3.example.com/',
          publicKey: 'k',
          privateKey: 's',
          region: null,
        },
      })
    ).json().data.storage;
    expect(custom.host).toBe('https://s3.example.com');
    expect(custom).not.toHaveProperty('region');
    expect(custom).not.toHaveProperty('useAccelerateEndpoint');

    const azure = (
      await t.call('POST', '/v2/storages', {
        body: { name: 'z', provider: 'AZURE', publicKey: 'acct', privateKey: 'a2V5' },
      })
    ).json().data.storage;
    expect(azure.azureAuthType).toBe('ACCOUNT_KEY');
    const sovereign = await t.call('POST', '/v2/storages', {
      body: {
        name: 'cn',
        provider: 'AZURE',
        publicKey: 'acct',
        privateKey: 'a2V5',
        host: 'blob.core.chinacloudapi.cn',
      },
    });
    expect(sovereign.json().data.storage.host).toBe('blob.core.chinacloudapi.cn');

    const gcpAsText = await t.call('POST', '/v2/storages', {
      body: {
        name: 'g',
        provider: 'GCP',
        credentials: JSON.stringify(makeServiceAccount().credentials),
        host: 'http://127.0.0.1:4443',
      },
    });
    expect(gcpAsText.statusCode).toBe(201);
    expect(gcpAsText.json().data.storage.host).toBe('http://127.0.0.1:4443');
  });

  it('names every missing or wrong field of a provider', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ name: 'x', provider: 'CUSTOM_S3', publicKey: 'k', privateKey: 's' }, ['host']],
      [{ name: 'x', provider: 'AWS' }, ['publicKey', 'privateKey']],
      [{ name: 'x', provider: 'AWS', publicKey: 'k', privateKey: 's', host: 'https://s3.example.com' }, ['host']],
      [{ name: 'x', provider: 'AWS', publicKey: 'k', privateKey: 's', region: 'Frankfurt' }, ['region']],
      [{ name: 'x', provider: 'AWS', s3AccessType: 'IAM_DELEGATED' }, ['s3RoleArn']],
      [{ name: 'x', provider: 'AWS', s3AccessType: 'IAM_DELEGATED', s3RoleArn: 'role/x' }, ['s3RoleArn']],
      [{ name: 'x', provider: 'AWS', s3AccessType: 'OTHER' }, ['s3AccessType']],
      [{ name: 'x', provider: 'GCP' }, ['credentials']],
      [
        { name: 'x', provider: 'GCP', credentials: { client_email: 'a@b', private_key: 'nope' } },
        ['credentials.private_key'],
      ],
      [{ name: 'x', provider: 'GCP', credentials: '{not json' }, ['credentials']],
      [{ name: 'x', provider: 'AZURE', privateKey: 'a2V5' }, ['publicKey']],
      [{ name: 'x', provider: 'AZURE', publicKey: 'acct' }, ['privateKey']],
      [
        { name: 'x', provider: 'AZURE', publicKey: 'acct', azureAuthType: 'SERVICE_PRINCIPAL' },
        ['azureTenantId', 'azureClientId', 'azureClientSecret'],
      ],
      [{ name: 'x', provider: 'AZURE', publicKey: 'acct', azureAuthType: 'MULTI_TENANT' }, ['azureTenantId']],
      [{ name: 'x', provider: 'AZURE', publicKey: 'acct', privateKey: 'a2V5', host: 'not a host/x' }, ['host']],
      [
        { name: 'x', provider: 'CUSTOM_S3', host: 'ftp://files.example.com', publicKey: 'k', privateKey: 's' },
        ['host'],
      ],
      [{ name: 'x', provider: 'DROPBOX' }, ['provider']],
      [{ name: '   ', provider: 'AWS', publicKey: 'k', privateKey: 's' }, ['name']],
      [{ provider: 'AWS' }, ['name']],
    ];
    for (const [body, fields] of cases) {
      const res = await t.call('POST', '/v2/storages', { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().status).toBe('fail');
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    const secret = 'Sup3rSecretValue';
    const bad = await t.call('POST', '/v2/storages', {
      body: { name: 'x', provider: 'AZURE', publicKey: 'BAD NAME', privateKey: secret },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).not.toContain(secret);
  });

  it('lists with pagination and the _id filter, newest first', async () => {
    const fresh = await makeTestApp(engine);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await fresh.call('POST', '/v2/storages', {
          body: {
            name: `s${i}`,
            provider: 'CUSTOM_S3',
            host: 'https://s3.example.com',
            publicKey: 'k',
            privateKey: 's',
          },
        });
        ids.push(res.json().data.storage._id);
      }
      const all = (await fresh.call('GET', '/v2/storages')).json();
      expect(all.status).toBe('success');
      expect(all.data.total).toBe(5);
      expect(all.data.storages.map((s: { name: string }) => s.name)).toEqual(['s4', 's3', 's2', 's1', 's0']);
      const page2 = (await fresh.call('GET', '/v2/storages?page=2&limit=2')).json().data;
      expect(page2.storages.map((s: { name: string }) => s.name)).toEqual(['s2', 's1']);
      expect(page2.total).toBe(5);
      const one = (await fresh.call('GET', `/v2/storages?_id=${ids[1]}`)).json().data;
      expect(one.storages).toHaveLength(1);
      expect(one.storages[0]._id).toBe(ids[1]);
      expect((await fresh.call('GET', '/v2/storages?page=0')).statusCode).toBe(400);
      expect((await fresh.call('GET', '/v2/storages?limit=101')).statusCode).toBe(400);
      expect((await fresh.call('GET', '/v2/storages?limit=0')).statusCode).toBe(400);
      const badId = await fresh.call('GET', '/v2/storages?_id=nope');
      expect(badId.statusCode).toBe(400);
      expect(badId.json().errors[0].field).toBe('_id');
      expect((await fresh.call('GET', '/v2/storages?limit=100')).statusCode).toBe(200);
    } finally {
      await fresh.close();
    }
  });

  it('soft-deletes: the record stays flagged, its secrets go, the id answers 404 afterwards', async () => {
    const created = (
      await t.call('POST', '/v2/storages', {
        body: {
          name: 'gone',
          provider: 'CUSTOM_S3',
          host: 'https://s3.example.com',
          publicKey: 'k',
          privateKey: 'secret-gone',
        },
      })
    ).json().data.storage;
    const del = await t.call('DELETE', `/v2/storages/${created._id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().data.storage).toMatchObject({ _id: created._id, name: 'gone', deleted: true });
    const row = await t.store.db
      .selectFrom('storages')
      .selectAll()
      .where('id', '=', created._id)
      .executeTakeFirstOrThrow();
    expect(row.deleted).toBe(1);
    expect(row.deleted_at).not.toBeNull();
    expect(row.secrets).toBeNull();
    expect((await t.call('DELETE', `/v2/storages/${created._id}`)).statusCode).toBe(404);
    const listed = (await t.call('GET', `/v2/storages?_id=${created._id}`)).json().data;
    expect(listed.storages).toEqual([]);
    const files = await t.call('GET', `/v2/storages/${created._id}/files?bucketName=b`);
    expect(files.statusCode).toBe(404);
    expect((await t.call('DELETE', '/v2/storages/000000000000000000000000')).statusCode).toBe(404);
    expect((await t.call('DELETE', '/v2/storages/%00')).statusCode).toBe(404);
    expect((await t.call('GET', '/v2/storages/not-an-id/files?bucketName=b')).statusCode).toBe(404);
  });

  it('lets members list but only owners and admins create and delete; other organizations see nothing', async () => {
    const member = await t.addUser(`member-${engine}@example.com`, 'member');
    const admin = await t.addUser(`admin-${engine}@example.com`, 'admin');
    const body = { name: 'm', provider: 'CUSTOM_S3', host: 'https://s3.example.com', publicKey: 'k', privateKey: 's' };
    expect((await t.call('POST', '/v2/storages', { key: member, body })).statusCode).toBe(403);
    const made = await t.call('POST', '/v2/storages', { key: admin, body });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.storage._id;
    expect(
      (await t.call('GET', '/v2/storages', { key: member })).json().data.storages.map((s: { _id: string }) => s._id),
    ).toContain(id);
    expect((await t.call('DELETE', `/v2/storages/${id}`, { key: member })).statusCode).toBe(403);
    expect((await t.call('GET', '/v2/storages', { key: null })).statusCode).toBe(401);

    const org = await createOrganization(t.store.db, t.ctx.clock, 'Other', 'standard');
    const stranger = await createUser(t.store.db, t.ctx.clock, {
      email: `owner-${engine}@other.example`,
      orgId: org.id,
      orgRole: 'owner',
    });
    const strangerKey = await issueApiKey(t.store.db, t.ctx.clock, stranger.id);
    expect((await t.call('GET', '/v2/storages', { key: strangerKey })).json().data).toEqual({ storages: [], total: 0 });
    expect((await t.call('DELETE', `/v2/storages/${id}`, { key: strangerKey })).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/storages/${id}/files?bucketName=b`, { key: strangerKey })).statusCode).toBe(404);
    expect((await t.call('DELETE', `/v2/storages/${id}`, { key: admin })).statusCode).toBe(200);
  });

  it('validates the list-files query', async () => {
    const id = (
      await t.call('POST', '/v2/storages', {
        body: { name: 'q', provider: 'CUSTOM_S3', host: 'http://127.0.0.1:9', publicKey: 'k', privateKey: 's' },
      })
    ).json().data.storage._id;
    const missing = await t.call('GET', `/v2/storages/${id}/files`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('bucketName');
    const bad = await t.call('GET', `/v2/storages/${id}/files?bucketName=b&getSignedUrls=yes`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('getSignedUrls');
  });
});

describe.each(ENGINES)('storage secrets at rest on %s', (engine) => {
  it('finds no plaintext secret in any file of the data folder, any row of any table or any log line', async () => {
    const store = await makeStore(engine);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({
      ANNOTARY_DATA_DIR: store.dataDir,
      LOG_LEVEL: 'trace',
      ANNOTARY_PUBLIC_URL: 'http://annotary.test',
      ...ALLOW_PRIVATE,
    });
    const log = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    const ctx = await createContext(config, { store, migrated: true, log });
    const boot = await bootstrap(store.db, ctx.clock, { plan: config.defaultPlan });
    const app = await buildApp(ctx);
    try {
      const s = secretSet();
      const ids: string[] = [];
      for (const body of storageBodies(s)) {
        const res = await app.inject({
          method: 'POST',
          url: '/v2/storages',
          headers: { apikey: boot!.apiKey! },
          payload: body,
        });
        expect(res.statusCode).toBe(201);
        ids.push(res.json().data.storage._id);
      }
      // A failing listing logs the provider failure: it must not carry a secret either.
      for (const id of ids.slice(1, 2)) {
        await app.inject({
          method: 'GET',
          url: `/v2/storages/${id}/files?bucketName=b`,
          headers: { apikey: boot!.apiKey! },
        });
      }
      await app.close();
      await ctx.close();

      const haystacks: string[] = [];
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(p);
          else haystacks.push(fs.readFileSync(p).toString('latin1'));
        }
      };
      walk(store.dataDir);
      if (engine === 'sqlite') expect(haystacks.length).toBeGreaterThan(0);
      const tables =
        engine === 'postgres'
          ? (
              await sql<{
                name: string;
              }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
                store.db,
              )
            ).rows
          : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.db)).rows;
      expect(tables.map((r) => r.name)).toContain('storages');
      for (const { name } of tables) {
        const rows = await sql`select * from ${sql.table(name)}`.execute(store.db);
        haystacks.push(JSON.stringify(rows.rows));
      }
      haystacks.push(lines.join(''));
      expect(lines.join('')).toContain('storage created');
      expect(lines.join('')).toContain('storage provider failure');
      for (const secret of secretsOf(s)) {
        for (const hay of haystacks) expect(hay.includes(secret)).toBe(false);
      }
      const sealed = await store.db.selectFrom('storages').select(['id', 'secrets']).execute();
      expect(sealed.filter((r) => r.secrets !== null)).toHaveLength(5);
      for (const r of sealed) if (r.secrets) expect(r.secrets).toMatch(/^v1\.[0-9a-f]{8}\./);
    } finally {
      await store.cleanup();
    }
  });

  it('re-seals every secret under a new key; the old key no longer opens them', async () => {
    const t = await makeTestApp(engine, { env: ALLOW_PRIVATE });
    try {
      const s = secretSet();
      for (const body of storageBodies(s))
        expect((await t.call('POST', '/v2/storages', { body })).statusCode).toBe(201);
      const newKey = randomBytes(32);
      const result = await rotateStorageSecrets(t.store.db, t.ctx.secretKey, newKey);
      expect(result).toEqual({ rotated: 5, alreadyRotated: 0 });
      expect(await rotateStorageSecrets(t.store.db, t.ctx.secretKey, newKey)).toEqual({
        rotated: 0,
        alreadyRotated: 5,
      });
      const box = new SecretBox(newKey, STORAGE_SECRETS_PURPOSE);
      const rows = await t.store.db
        .selectFrom('storages')
        .select(['id', 'name', 'secrets'])
        .where('secrets', 'is not', null)
        .execute();
      const aws = rows.find((r) => r.name === 'aws')!;
      expect(JSON.parse(box.open(aws.secrets!, secretsAad(aws.id)))).toEqual({ privateKey: s.awsSecret });
      // A value moved to another row does not open there.
      expect(() => box.open(aws.secrets!, secretsAad(rows.find((r) => r.name === 'gcs')!.id))).toThrow(
        /authentication/,
      );

      // The server still on the old key says so, without a 500 and without the secret.
      const principal: Principal = {
        keyId: 'k',
        userId: 'u',
        email: 'admin@annotary.local',
        orgId: t.orgId,
        orgRole: 'owner',
        plan: 'standard',
        planLimit: null,
      };
      await expect(listFiles(t.ctx, principal, aws.id, { bucketName: 'b' })).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('server key'),
      });
      const res = await t.call('GET', `/v2/storages/${aws.id}/files?bucketName=b`);
      expect(res.statusCode).toBe(503);
      expect(res.body).not.toContain(s.awsSecret);
      // And the server on the new key reaches the provider (unreachable here, which is a 400, not a key error).
      const rotatedCtx = { ...t.ctx, secretKey: newKey };
      const custom = rows.find((r) => r.name === 'minio')!;
      await expect(listFiles(rotatedCtx, principal, custom.id, { bucketName: 'b' })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    } finally {
      await t.close();
    }
  });
});
