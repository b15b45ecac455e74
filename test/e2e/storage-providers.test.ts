import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearAwsSessions } from '../../src/adapters/storage/aws-sessions.js';
import { setStorageTestOverrides, type TestOverrides } from '../../src/adapters/storage/index.js';
import { signObjectUploadUrl, signObjectUrl } from '../../src/services/storages/storage.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  fillBucket,
  fillContainer,
  S3RVER_KEYS,
  startAzurite,
  startS3rver,
} from '../helpers/emulators.js';
import {
  type FakeGcs,
  type FakeSts,
  type FaultProxy,
  makeServiceAccount,
  startFakeGcs,
  startFakeSts,
  startSlowDownProxy,
} from '../helpers/fake-servers.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Listings and signed URLs against real servers started here: s3rver (AWS through a test-only
 * endpoint override, and CUSTOM_S3), Azurite (account keys), our GCS JSON API server driven by
 * the real @google-cloud/storage client, a local STS for IAM_DELEGATED, and a proxy that
 * answers SlowDown in front of s3rver.
 */

const OBJECTS: Record<string, string> = {
  'a.jpg': 'A',
  'cats/1.jpg': 'cat one',
  'cats/2 two.jpg': 'cat two',
  'cats/deep/3.jpg': 'cat three',
  'cats/': '',
  'catsup/x.jpg': 'not a cat',
  'dogs/1.jpg': 'dog',
};
const CATS = ['cats/1.jpg', 'cats/2 two.jpg', 'cats/deep/3.jpg'];
const ALL = ['a.jpg', 'cats/1.jpg', 'cats/2 two.jpg', 'cats/deep/3.jpg', 'catsup/x.jpg', 'dogs/1.jpg'];

let s3: Awaited<ReturnType<typeof startS3rver>>;
let azurite: Awaited<ReturnType<typeof startAzurite>>;
let gcs: FakeGcs;
let sts: FakeSts;
let proxy: FaultProxy;
const sa = makeServiceAccount();
let closedPort: number;

beforeAll(async () => {
  [s3, azurite, gcs, sts] = await Promise.all([
    startS3rver(),
    startAzurite(),
    startFakeGcs(),
    startFakeSts(S3RVER_KEYS),
  ]);
  proxy = await startSlowDownProxy(s3.url);
  await fillBucket(s3.client, 'photos', OBJECTS);
  await fillBucket(s3.client, 'uploads', {});
  await fillContainer(azurite.client, 'photos', OBJECTS);
  await fillContainer(azurite.client, 'uploads', {});
  gcs.buckets.set('photos', new Map(Object.entries(OBJECTS).map(([k, v]) => [k, Buffer.from(v)])));
  gcs.keys.set(sa.credentials.client_email, sa.publicKey);
  // A port nobody listens on: "unreachable host".
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  // The server's own AWS credentials, for AssumeRole (the SDK's default chain reads these).
  process.env.AWS_ACCESS_KEY_ID = 'SERVER-OWN-KEY';
  process.env.AWS_SECRET_ACCESS_KEY = 'server-own-secret';
});

afterAll(async () => {
  await Promise.all([s3?.stop(), azurite?.stop(), gcs?.close(), sts?.close(), proxy?.close()]);
});

describe.each(ENGINES)('storage providers on %s', (engine) => {
  let t: TestApp;
  const overrides = (): TestOverrides => ({
    awsEndpoint: s3.url,
    stsEndpoint: sts.url,
    pageSize: 2,
    retry: { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 5 },
  });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    setStorageTestOverrides(t.ctx, overrides());
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown>): Promise<string> {
    const res = await t.call('POST', '/v2/storages', { body: { name: `${body.provider}`, ...body } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.storage._id as string;
  }

  async function files(id: string, query: string) {
    const res = await t.call('GET', `/v2/storages/${id}/files?${query}`);
    return { status: res.statusCode, body: res.json(), raw: res.body };
  }

  /** Opens every URL with a plain GET and answers the bodies. */
  async function open(urls: string[]): Promise<string[]> {
    return Promise.all(
      urls.map(async (u) => {
        const res = await fetch(u);
        expect(res.status, u).toBe(200);
        return res.text();
      }),
    );
  }

  const customS3 = (extra: Record<string, unknown> = {}) =>
    create({
      provider: 'CUSTOM_S3',
      host: s3.url,
      publicKey: S3RVER_KEYS.accessKeyId,
      privateKey: S3RVER_KEYS.secretAccessKey,
      ...extra,
    });

  it('CUSTOM_S3: lists a folder recursively, as keys or as signed URLs that open with a plain GET', async () => {
    const id = await customS3();
    const keys = await files(id, 'bucketName=photos&path=cats&getSignedUrls=FALSE');
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual({ status: 'success', data: { total: 3, files: CATS } });
    expect((await files(id, 'bucketName=photos&path=/cats/&getSignedUrls=false')).body.data.files).toEqual(CATS);
    expect((await files(id, 'bucketName=photos&getSignedUrls=false')).body.data.files).toEqual(ALL);
    expect((await files(id, 'bucketName=photos&path=nothing-here&getSignedUrls=false')).body.data).toEqual({
      total: 0,
      files: [],
    });

    const signed = await files(id, 'bucketName=photos&path=cats&getSignedUrls=True&retryOnSlowDown=TRUE');
    expect(signed.status).toBe(200);
    const urls = signed.body.data.files as string[];
    expect(urls).toHaveLength(3);
    for (const u of urls) expect(u).toMatch(new RegExp(`^${s3.url}/photos/cats/.*X-Amz-Signature=`));
    expect(await open(urls)).toEqual(['cat one', 'cat two', 'cat three']);
    // Signed URLs are the default.
    expect((await files(id, 'bucketName=photos&path=dogs')).body.data.files[0]).toContain('X-Amz-Signature=');
  });

  it('AWS (endpoint override, tests only): IAM_USER keys list and sign', async () => {
    const id = await create({
      provider: 'AWS',
      region: 'us-east-1',
      publicKey: S3RVER_KEYS.accessKeyId,
      privateKey: 'x',
    });
    const res = await files(id, 'bucketName=photos&path=cats');
    expect(res.status).toBe(200);
    expect(await open(res.body.data.files)).toEqual(['cat one', 'cat two', 'cat three']);
  });

  it('S3: a missing bucket is 404, refused credentials 403, an unreachable host 400, each saying which', async () => {
    const id = await customS3();
    const missing = await files(id, 'bucketName=no-such-bucket');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/bucket "no-such-bucket" does not exist.*NoSuchBucket/),
    });

    const wrongKey = await customS3({ publicKey: 'NOT-A-KEY', privateKey: 'very-secret-value' });
    const denied = await files(wrongKey, 'bucketName=photos');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/refused the credentials.*InvalidAccessKeyId/);
    expect(denied.raw).not.toContain('very-secret-value');

    const nowhere = await customS3({ host: `http://127.0.0.1:${closedPort}` });
    const unreachable = await files(nowhere, 'bucketName=photos');
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.message).toMatch(/could not be reached \(ECONNREFUSED\)/);
  });

  it('SlowDown from the provider: retried with backoff by default, answered 429 at once with retryOnSlowDown=false', async () => {
    const id = await customS3({ host: proxy.url });
    proxy.requests = 0;
    proxy.slowDownNext(3);
    const retried = await files(id, 'bucketName=photos&path=cats&getSignedUrls=false');
    expect(retried.status).toBe(200);
    expect(retried.body.data.files).toEqual(CATS);
    expect(proxy.requests).toBe(3 + 2); // three SlowDowns, then two pages of two

    proxy.requests = 0;
    proxy.slowDownNext(1);
    const refused = await files(id, 'bucketName=photos&path=cats&retryOnSlowDown=false');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/rate limiting.*SlowDown.*retryOnSlowDown=true/),
    });
    expect(proxy.requests).toBe(1);

    // A SlowDown on a later page fails the whole listing too: no half answer.
    proxy.requests = 0;
    proxy.slowDownNext(1, 1);
    const later = await files(id, 'bucketName=photos&path=cats&retryOnSlowDown=False&getSignedUrls=false');
    expect(later.status).toBe(429);
    expect(later.body).not.toHaveProperty('data');
    expect(proxy.requests).toBe(2);

    proxy.slowDownNext(50);
    const exhausted = await files(id, 'bucketName=photos');
    expect(exhausted.status).toBe(429);
    expect(exhausted.body.message).toMatch(/after 5 attempts/);
    proxy.slowDownNext(0);
  });

  it('AWS IAM_DELEGATED: assumes the role with the server credentials and external id, once per session', async () => {
    clearAwsSessions();
    sts.calls.length = 0;
    const res = await t.call('POST', '/v2/storages', {
      body: {
        name: 'delegated',
        provider: 'AWS',
        region: 'us-east-1',
        s3AccessType: 'IAM_DELEGATED',
        s3RoleArn: 'arn:aws:iam::123456789012:role/reader',
      },
    });
    const storage = res.json().data.storage;
    const first = await files(storage._id, 'bucketName=photos&path=cats');
    expect(first.status, first.raw).toBe(200);
    expect(first.body.data.files[0]).toContain('X-Amz-Security-Token=session-token');
    expect(await open(first.body.data.files)).toEqual(['cat one', 'cat two', 'cat three']);
    expect((await files(storage._id, 'bucketName=photos&getSignedUrls=false')).status).toBe(200);
    expect(sts.calls).toEqual([{ roleArn: 'arn:aws:iam::123456789012:role/reader', externalId: storage.s3ExternalId }]);

    sts.refuse.add('arn:aws:iam::123456789012:role/forbidden');
    const refusedId = await create({
      provider: 'AWS',
      s3AccessType: 'IAM_DELEGATED',
      s3RoleArn: 'arn:aws:iam::123456789012:role/forbidden',
      s3ExternalId: 'ext-1',
    });
    const refused = await files(refusedId, 'bucketName=photos');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/AWS STS refused to assume the role \(AccessDenied\)/);
  });

  it('AZURE account key (Azurite): lists through pages and signs SAS URLs that open', async () => {
    const id = await create({
      provider: 'AZURE',
      publicKey: AZURITE_ACCOUNT,
      privateKey: AZURITE_KEY,
      host: azurite.serviceUrl,
    });
    expect((await files(id, 'bucketName=photos&getSignedUrls=false')).body.data.files).toEqual(ALL);
    const signed = await files(id, 'bucketName=photos&path=cats');
    expect(signed.status).toBe(200);
    for (const u of signed.body.data.files) expect(u).toMatch(/[?&]sig=/);
    expect(await open(signed.body.data.files)).toEqual(['cat one', 'cat two', 'cat three']);

    const missing = await files(id, 'bucketName=nope');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/bucket "nope" does not exist.*ContainerNotFound/);
    const wrongKey = await create({
      provider: 'AZURE',
      publicKey: AZURITE_ACCOUNT,
      privateKey: Buffer.from('not the key').toString('base64'),
      host: azurite.serviceUrl,
    });
    const denied = await files(wrongKey, 'bucketName=photos');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/refused the credentials/);
  });

  it('AZURE MULTI_TENANT without the server app registration says so (400)', async () => {
    const id = await create({
      provider: 'AZURE',
      publicKey: 'acct',
      azureAuthType: 'MULTI_TENANT',
      azureTenantId: 'contoso.com',
    });
    const res = await files(id, 'bucketName=photos');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/AZURE_CLIENT_ID/);
  });

  it('GCP (JSON API server, real client): pages through, signs V4 URLs with the service account key', async () => {
    const id = await create({ provider: 'GCP', credentials: sa.credentials, host: gcs.url });
    gcs.listCalls = 0;
    const keys = await files(id, 'bucketName=photos&getSignedUrls=false');
    expect(keys.body.data.files).toEqual(ALL);
    expect(gcs.listCalls).toBe(4); // 7 objects, 2 a page
    const signed = await files(id, 'bucketName=photos&path=cats');
    expect(signed.status).toBe(200);
    for (const u of signed.body.data.files) expect(u).toMatch(/X-Goog-Algorithm=GOOG4-RSA-SHA256/);
    // The server checks each signature against the service account's public key.
    expect(await open(signed.body.data.files)).toEqual(['cat one', 'cat two', 'cat three']);
    const tampered = signed.body.data.files[0]
      .replace('cats%2F1.jpg', 'cats%2F2.jpg')
      .replace('cats/1.jpg', 'dogs/1.jpg');
    expect((await fetch(tampered)).status).toBe(403);

    gcs.rateLimitNext(2);
    expect((await files(id, 'bucketName=photos&getSignedUrls=false')).status).toBe(200);
    gcs.rateLimitNext(1);
    const limited = await files(id, 'bucketName=photos&retryOnSlowDown=false');
    expect(limited.status).toBe(429);
    gcs.rateLimitNext(0);
    expect((await files(id, 'bucketName=absent')).status).toBe(404);
    gcs.forbidden.add('locked');
    gcs.buckets.set('locked', new Map());
    const denied = await files(id, 'bucketName=locked');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/refused the credentials.*forbidden/);
  });

  it('spools a large listing to a private temporary file and removes it', async () => {
    const id = await create({ provider: 'GCP', credentials: sa.credentials, host: gcs.url });
    const names = Array.from({ length: 3000 }, (_, i) => `big/${String(i).padStart(5, '0')}-${'x'.repeat(400)}.jpg`);
    gcs.buckets.set('big', new Map(names.map((n) => [n, Buffer.from('x')])));
    setStorageTestOverrides(t.ctx, { ...overrides(), pageSize: 1000 });
    const spooled = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('annotary-listing-')).length;
    const before = spooled();
    try {
      const res = await files(id, 'bucketName=big&getSignedUrls=false');
      expect(res.status).toBe(200);
      expect(res.raw.length).toBeGreaterThan(1024 * 1024);
      expect(res.body.data.total).toBe(3000);
      expect(res.body.data.files).toEqual(names);
      expect(spooled()).toBe(before);
    } finally {
      setStorageTestOverrides(t.ctx, overrides());
    }
  });

  it('signObjectUrl signs by bucket and key or by URL, for this organization only', async () => {
    const s3Id = await customS3();
    const byKey = await signObjectUrl(t.ctx, t.orgId, s3Id, { bucket: 'photos', key: 'cats/2 two.jpg' });
    const byS3Url = await signObjectUrl(t.ctx, t.orgId, s3Id, { url: 's3://photos/dogs/1.jpg' });
    const byHttp = await signObjectUrl(t.ctx, t.orgId, s3Id, { url: `${s3.url}/photos/cats/deep/3.jpg` });
    expect(await open([byKey, byS3Url, byHttp])).toEqual(['cat two', 'dog', 'cat three']);
    await expect(
      signObjectUrl(t.ctx, t.orgId, s3Id, { url: 'https://elsewhere.example.com/photos/a.jpg' }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      signObjectUrl(t.ctx, '000000000000000000000000', s3Id, { bucket: 'photos', key: 'a.jpg' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    const gcsId = await create({ provider: 'GCP', credentials: sa.credentials, host: gcs.url });
    const azureId = await create({
      provider: 'AZURE',
      publicKey: AZURITE_ACCOUNT,
      privateKey: AZURITE_KEY,
      host: azurite.serviceUrl,
    });
    const fromGs = await signObjectUrl(t.ctx, t.orgId, gcsId, { url: 'gs://photos/cats/1.jpg' });
    const fromAzure = await signObjectUrl(t.ctx, t.orgId, azureId, {
      url: `${azurite.serviceUrl}/photos/cats/2%20two.jpg`,
    });
    expect(await open([fromGs, fromAzure])).toEqual(['cat one', 'cat two']);

    // Upload URLs: PUT the bytes, then read them back.
    const put = await signObjectUploadUrl(t.ctx, t.orgId, s3Id, { bucket: 'uploads', key: `${engine}/new.txt` });
    expect((await fetch(put, { method: 'PUT', body: 'fresh bytes' })).status).toBe(200);
    expect(
      await open([await signObjectUrl(t.ctx, t.orgId, s3Id, { bucket: 'uploads', key: `${engine}/new.txt` })]),
    ).toEqual(['fresh bytes']);
    const azurePut = await signObjectUploadUrl(t.ctx, t.orgId, azureId, { bucket: 'uploads', key: `${engine}.txt` });
    const azureRes = await fetch(azurePut, {
      method: 'PUT',
      body: 'azure bytes',
      headers: { 'x-ms-blob-type': 'BlockBlob' },
    });
    expect(azureRes.status).toBe(201);
    expect(
      await open([await signObjectUrl(t.ctx, t.orgId, azureId, { bucket: 'uploads', key: `${engine}.txt` })]),
    ).toEqual(['azure bytes']);
  });

  it('AWS useAccelerateEndpoint signs for the accelerate endpoint; virtual-hosted AWS URLs are understood', async () => {
    setStorageTestOverrides(t.ctx, { ...overrides(), awsEndpoint: undefined });
    try {
      const id = await create({
        provider: 'AWS',
        publicKey: 'AKIAEXAMPLE',
        privateKey: 'secret',
        useAccelerateEndpoint: true,
      });
      const url = await signObjectUrl(t.ctx, t.orgId, id, {
        url: 'https://photos.s3.eu-central-1.amazonaws.com/cats/1.jpg',
      });
      expect(new URL(url).hostname).toBe('photos.s3-accelerate.amazonaws.com');
      expect(new URL(url).pathname).toBe('/cats/1.jpg');
      const plain = await create({
        provider: 'AWS',
        region: 'eu-west-1',
        publicKey: 'AKIAEXAMPLE',
        privateKey: 'secret',
      });
      const pathStyle = await signObjectUrl(t.ctx, t.orgId, plain, {
        url: 'https://s3.eu-west-1.amazonaws.com/photos/a.jpg',
      });
      expect(new URL(pathStyle).hostname).toBe('photos.s3.eu-west-1.amazonaws.com');
    } finally {
      setStorageTestOverrides(t.ctx, overrides());
    }
  });
});
