import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStorageTestOverrides } from '../../src/adapters/storage/index.js';
import { signObjectUrl } from '../../src/services/storages/storage.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { AZURITE_ACCOUNT, fillContainer, selfSignedCert, startAzurite } from '../helpers/emulators.js';
import { type FakeEntra, startFakeEntra } from '../helpers/fake-servers.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * SERVICE_PRINCIPAL and MULTI_TENANT: the real @azure/identity ClientSecretCredential gets a
 * token from a local Entra ID, the real @azure/storage-blob client lists with it and asks
 * Azurite (https, OAuth "basic") for a user-delegation key, and Azurite checks the resulting
 * user-delegation SAS when the URL is opened. Both servers use a throw-away self-signed
 * certificate, so this test process (and only it) does not verify TLS certificates.
 */
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

let tls: ReturnType<typeof selfSignedCert>;
let azurite: Awaited<ReturnType<typeof startAzurite>>;
let entra: FakeEntra;

beforeAll(async () => {
  tls = selfSignedCert();
  [azurite, entra] = await Promise.all([startAzurite(tls), startFakeEntra(tls)]);
  await fillContainer(azurite.client, 'scans', { 'a/1.txt': 'one', 'a/2.txt': 'two', 'b/3.txt': 'three' });
  entra.apps.set('customer-app', 'customer-secret');
  entra.apps.set('annotary-app', 'annotary-secret');
  // The server's own multi-tenant app registration (MULTI_TENANT storages).
  process.env.AZURE_CLIENT_ID = 'annotary-app';
  process.env.AZURE_CLIENT_SECRET = 'annotary-secret';
});

afterAll(async () => {
  await Promise.all([azurite?.stop(), entra?.close()]);
  tls?.cleanup();
});

describe.each(ENGINES)('Azure Entra ID storages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    setStorageTestOverrides(t.ctx, { azureAuthorityHost: entra.url, pageSize: 2 });
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown>): Promise<string> {
    const res = await t.call('POST', '/v2/storages', {
      body: { name: 'entra', provider: 'AZURE', publicKey: AZURITE_ACCOUNT, host: azurite.serviceUrl, ...body },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.storage._id as string;
  }

  it('SERVICE_PRINCIPAL lists with a token and signs user-delegation SAS URLs that open', async () => {
    const id = await create({
      azureAuthType: 'SERVICE_PRINCIPAL',
      azureTenantId: `tenant-${engine}`,
      azureClientId: 'customer-app',
      azureClientSecret: 'customer-secret',
    });
    const keys = await t.call('GET', `/v2/storages/${id}/files?bucketName=scans&getSignedUrls=false`);
    expect(keys.statusCode, keys.body).toBe(200);
    expect(keys.json().data.files).toEqual(['a/1.txt', 'a/2.txt', 'b/3.txt']);
    const signed = await t.call('GET', `/v2/storages/${id}/files?bucketName=scans&path=a`);
    expect(signed.statusCode, signed.body).toBe(200);
    const urls = signed.json().data.files as string[];
    for (const u of urls) expect(u).toMatch(/[?&]skoid=oid-of-customer-app/);
    const bodies = await Promise.all(urls.map(async (u) => (await fetch(u)).text()));
    expect(bodies).toEqual(['one', 'two']);
    // A forged signature is refused by Azurite.
    const forged = urls[0]!.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await fetch(forged)).status).toBe(403);
  });

  it('MULTI_TENANT uses the server app registration in the customer tenant', async () => {
    const id = await create({ azureAuthType: 'MULTI_TENANT', azureTenantId: `customer-tenant-${engine}` });
    const url = await signObjectUrl(t.ctx, t.orgId, id, { url: `${azurite.serviceUrl}/scans/b/3.txt` });
    expect(url).toContain('skoid=oid-of-annotary-app');
    expect(await (await fetch(url)).text()).toBe('three');
  });

  it('a refused client secret is a 403 that names Entra ID and never echoes the secret', async () => {
    const id = await create({
      azureAuthType: 'SERVICE_PRINCIPAL',
      azureTenantId: `tenant-${engine}`,
      azureClientId: 'customer-app',
      azureClientSecret: 'wrong-secret-value',
    });
    const res = await t.call('GET', `/v2/storages/${id}/files?bucketName=scans`);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().message).toMatch(/Microsoft Entra ID refused the client credentials/);
    expect(res.body).not.toContain('wrong-secret-value');
  });
});
