import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The address links start with (src/http/link-base.ts): ANNOTARY_PUBLIC_URL when set, else the
 * request's Host; X-Forwarded-Host/-Proto only from a proxy ANNOTARY_TRUST_PROXY trusts
 * (app.inject's requests come from 127.0.0.1).
 */

const LAN = '10.1.2.3:8080';

describe.each(ENGINES)('links follow the request address (%s)', (engine) => {
  let plain: TestApp;
  let proxied: TestApp;
  let configured: TestApp;
  let project = '';

  const links = async (t: TestApp, headers: Record<string, string>) => {
    const res = await t.call('POST', `/v2/organization/${t.orgId}/invites`, {
      body: { to: [`p${Math.random().toString(36).slice(2)}@example.com`] },
      headers,
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json().data.links as { url: string }[])[0]?.url ?? '';
  };

  beforeAll(async () => {
    // An empty ANNOTARY_PUBLIC_URL is unset: links come from the request.
    plain = await makeTestApp(engine, { env: { ANNOTARY_PUBLIC_URL: '' } });
    proxied = await makeTestApp(engine, { env: { ANNOTARY_PUBLIC_URL: '', ANNOTARY_TRUST_PROXY: '127.0.0.1' } });
    configured = await makeTestApp(engine, { env: { ANNOTARY_PUBLIC_URL: 'https://annotary.example.com' } });
    const res = await plain.call('POST', '/v2/project', { body: { name: 'Links' } });
    project = res.json().data.project._id as string;
  });
  afterAll(async () => {
    await plain?.close();
    await proxied?.close();
    await configured?.close();
  });

  it('answers invite links on the Host the request was sent to', async () => {
    expect(await links(plain, { host: LAN })).toMatch(new RegExp(`^http://${LAN}/invite/[\\w-]{43}$`));
    expect(await links(plain, { host: '[::1]:9000' })).toMatch(/^http:\/\/\[::1\]:9000\/invite\//);
    // Default ports drop out, as the browser writes the origin.
    expect(await links(plain, { host: 'annotary.lan:80' })).toMatch(/^http:\/\/annotary\.lan\/invite\//);
  });

  it('ignores forwarded headers unless the proxy is trusted, then uses them', async () => {
    const forwarded = { host: LAN, 'x-forwarded-host': 'labels.example.org', 'x-forwarded-proto': 'https' };
    expect(await links(plain, forwarded)).toMatch(new RegExp(`^http://${LAN}/invite/`));
    expect(await links(proxied, forwarded)).toMatch(/^https:\/\/labels\.example\.org\/invite\//);
  });

  it('falls back to localhost for a Host that is no host, and to ANNOTARY_PUBLIC_URL whenever it is set', async () => {
    for (const host of ['evil.example/x', 'user@evil.example', 'a b', '-bad-.example', 'x:99999']) {
      expect(await links(plain, { host }), host).toMatch(/^http:\/\/localhost:8080\/invite\//);
    }
    expect(await links(configured, { host: 'evil.example' })).toMatch(/^https:\/\/annotary\.example\.com\/invite\//);
    expect(await links(proxied, { host: LAN, 'x-forwarded-host': 'evil.example/x' })).toMatch(
      /^http:\/\/localhost:8080\/invite\//,
    );
  });

  it('signs file and export links on the same address; a link from another address is still ours', async () => {
    const up = await plain.call('GET', `/v2/getUploadUrl?project=${project}&name=a.png`, { headers: { host: LAN } });
    expect(up.statusCode, up.body).toBe(200);
    const { uploadUrl, readUrl } = up.json().data as { uploadUrl: string; readUrl: string };
    expect(uploadUrl).toMatch(new RegExp(`^http://${LAN}/files/\\d+/[\\w-]+/${project}/assets/[0-9a-f]{24}/a\\.png$`));
    expect(readUrl.replace(/\/files\/\d+\/[\w-]+\//, '/')).toBe(uploadUrl.replace(/\/files\/\d+\/[\w-]+\//, '/'));
    const put = await plain.app.inject({ method: 'PUT', url: new URL(uploadUrl).pathname, payload: 'png bytes' });
    expect(put.statusCode, put.body).toBe(200);
    const read = await plain.app.inject({ method: 'GET', url: new URL(readUrl).pathname });
    expect(read.body).toBe('png bytes');

    // The upload link of 10.1.2.3, asked about on localhost: a fresh read link on localhost.
    const signed = await plain.call('GET', `/v2/getSignedUrl?name=${encodeURIComponent(uploadUrl)}`, {
      headers: { host: 'localhost:8080' },
    });
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json().data.signedUrl).toMatch(/^http:\/\/localhost:8080\/files\/\d+\/[\w-]+\/.*\/a\.png$/);
    // The same path on another address with a signature that is not ours is any public URL.
    const forged = uploadUrl
      .replace(`http://${LAN}`, 'https://cdn.example.com')
      .replace(/\/files\/(\d+)\/[\w-]+/, '/files/$1/xyz');
    const other = await plain.call('GET', `/v2/getSignedUrl?name=${encodeURIComponent(forged)}`);
    expect(other.json().data.signedUrl).toBe(forged);

    const exported = await plain.call('GET', `/v2/export?project=${project}`, { headers: { host: LAN } });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().data.exportPath).toMatch(new RegExp(`^http://${LAN}/v2/exports/`));
  });

  it('names the server in the API document by the address it was read from unless the public URL is set', async () => {
    const doc = async (t: TestApp) => (await t.call('GET', '/v2/openapi.json')).json().servers[0].url as string;
    expect(await doc(plain)).toBe('/');
    expect(await doc(configured)).toBe('https://annotary.example.com');
  });
});
