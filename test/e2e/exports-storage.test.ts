import fs from 'node:fs';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type Emulator, S3RVER_KEYS, fillBucket, startS3rver } from '../helpers/emulators.js';
import { unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/** Projects with `exportStorageEnabled`: the zip goes to the storage, the link is the storage's. */
describe.each(ENGINES)('exports to an export storage (S3 emulator) on %s', (engine) => {
  let t: TestApp;
  let s3: Emulator & Awaited<ReturnType<typeof startS3rver>>;
  let projectId: string;
  let storageId: string;

  const settings = (body: Record<string, unknown>) => t.call('POST', `/v2/project/${projectId}`, { body });

  beforeAll(async () => {
    s3 = await startS3rver();
    await fillBucket(s3.client, 'exports', {});
    t = await makeTestApp(engine, {
      env: { ANNOTARY_DEFAULT_PLAN: 'enterprise', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    const storage = await t.call('POST', '/v2/storages', {
      body: {
        name: 'out',
        provider: 'CUSTOM_S3',
        host: s3.url,
        publicKey: S3RVER_KEYS.accessKeyId,
        privateKey: S3RVER_KEYS.secretAccessKey,
      },
    });
    expect(storage.statusCode, storage.body).toBe(201);
    storageId = storage.json().data.storage._id;
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'To storage' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }, { data: 'https://cdn.example.com/b.jpg' }] },
    });
    expect(imported.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  it('uploads the zip under exportStoragePath and answers a signed URL of the storage', async () => {
    const upd = await settings({
      exportStorageEnabled: true,
      exportStorageId: storageId,
      exportStorageBucket: 'exports',
      exportStoragePath: 'annotary/out',
    });
    expect(upd.statusCode, upd.body).toBe(200);
    const res = await t.call('GET', `/v2/exportV3?project=${projectId}&format=ndjson`);
    expect(res.statusCode, res.body).toBe(200);
    const link = res.json().data.exportPath as string;
    expect(link.startsWith(`${s3.url}/exports/annotary/out/`)).toBe(true);
    expect(new URL(link).searchParams.has('X-Amz-Signature')).toBe(true);

    const got = await fetch(link);
    expect(got.status).toBe(200);
    const entries = await unzip(Buffer.from(await got.arrayBuffer()));
    const lines = (entries[0]?.text ?? '').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { externalId: string }).externalId)).toEqual(['a.jpg', 'b.jpg']);

    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: 'exports', Prefix: 'annotary/out/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([new URL(link).pathname.replace('/exports/', '')]);
    // Nothing is kept locally once the storage has the file.
    const local = path.join(t.ctx.config.dataDir, 'exports');
    expect(fs.existsSync(local) ? fs.readdirSync(local) : []).toEqual([]);
  });

  it('answers 404 for a missing bucket and 400 naming what the settings lack', async () => {
    await settings({ exportStorageBucket: 'no-such-bucket' });
    const missing = await t.call('GET', `/v2/export?project=${projectId}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toContain('no-such-bucket');

    await settings({ exportStorageBucket: '' });
    const noBucket = await t.call('GET', `/v2/export?project=${projectId}`);
    expect(noBucket.statusCode).toBe(400);
    expect(noBucket.json().errors[0].field).toBe('exportStorageBucket');

    await settings({ exportStorageId: '', exportStorageBucket: 'exports' });
    const noStorage = await t.call('GET', `/v2/export?project=${projectId}`);
    expect(noStorage.statusCode).toBe(400);
    expect(noStorage.json().errors[0].field).toBe('exportStorageId');

    // A storage that is not one of the organization's is refused when it is written.
    const unknown = await settings({ exportStorageId: '0'.repeat(24) });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('exportStorageId');
  });
});
