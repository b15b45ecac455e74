import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeServiceAccount } from '../helpers/fake-servers.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * A storage host on a link-local address (cloud metadata) is always refused; on loopback and
 * private addresses only when the operator sets ANNOTARY_STORAGE_ALLOW_PRIVATE=true.
 */
const sa = makeServiceAccount();
const bodies = (host: string) => [
  { name: 's3', provider: 'CUSTOM_S3', host, publicKey: 'k', privateKey: 's' },
  { name: 'gcs', provider: 'GCP', credentials: sa.credentials, host },
  { name: 'azure', provider: 'AZURE', publicKey: 'acct01', privateKey: 'a2V5', host },
];

const LINK_LOCAL = [
  'http://169.254.169.254',
  'http://169.254.170.2:80/v2',
  'http://[fe80::1]:9000',
  'http://[::ffff:169.254.169.254]',
  'http://[64:ff9b::a9fe:a9fe]',
];
const PRIVATE = ['http://127.0.0.1:9000', 'http://10.0.0.5:9000', 'https://192.168.1.20', 'http://[::1]:9000'];

describe.each(ENGINES)('storage hosts on %s', (engine) => {
  let strict: TestApp;
  let relaxed: TestApp;
  beforeAll(async () => {
    strict = await makeTestApp(engine);
    relaxed = await makeTestApp(engine, { env: { ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await strict.close();
    await relaxed.close();
  });

  it('refuses link-local hosts always, and private ones unless allowed', async () => {
    for (const t of [strict, relaxed]) {
      for (const host of LINK_LOCAL) {
        for (const body of bodies(host)) {
          const res = await t.call('POST', '/v2/storages', { body });
          expect(res.statusCode, `${body.provider} ${host}`).toBe(400);
          expect(res.json().errors).toEqual([
            { field: 'host', message: expect.stringMatching(/^refused: .*link-local/) },
          ]);
        }
      }
    }
    for (const host of PRIVATE) {
      for (const body of bodies(host)) {
        const refused = await strict.call('POST', '/v2/storages', { body });
        expect(refused.statusCode, `${body.provider} ${host}`).toBe(400);
        expect(refused.json().errors[0]).toMatchObject({ field: 'host' });
        expect(refused.json().errors[0].message).toContain('ANNOTARY_STORAGE_ALLOW_PRIVATE');
        expect((await relaxed.call('POST', '/v2/storages', { body })).statusCode, `${body.provider} ${host}`).toBe(201);
      }
    }
    for (const body of bodies('https://storage.example.com')) {
      expect((await strict.call('POST', '/v2/storages', { body })).statusCode).toBe(201);
    }
    expect((await strict.call('GET', '/v2/storages?limit=100')).json().data.total).toBe(3);
  });

  it('judges a host name by the addresses it resolves to when the storage is used', async () => {
    const made = await strict.call('POST', '/v2/storages', {
      body: { name: 'named', provider: 'CUSTOM_S3', host: 'http://localhost:9', publicKey: 'k', privateKey: 's' },
    });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.storage._id;
    const listing = await strict.call('GET', `/v2/storages/${id}/files?bucketName=b`);
    expect(listing.statusCode).toBe(400);
    expect(listing.json().errors).toEqual([
      { field: 'host', message: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1)/) },
    ]);
    const signing = await strict.call('GET', `/v2/getSignedUrl?storageId=${id}&bucket=b&name=k.jpg`);
    expect(signing.statusCode).toBe(400);
  });
});
