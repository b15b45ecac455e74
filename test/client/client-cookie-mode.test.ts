import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnnotaryError } from '../../src/client/index.js';
import { CSRF_HEADER, Transport } from '../../src/client/transport.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * Cookie mode is how the console uses the client in a browser. Node's fetch keeps no cookies, so
 * the fetch under the client here plays the browser's cookie jar: it adds the session cookie
 * the server set, and records what the client itself put on each request.
 */
describe.each(ENGINES)('the typed client in cookie mode on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let cookie: string;
  let csrf: string;
  const sent: { method: string; path: string; headers: Headers }[] = [];
  const browserFetch = (req: Request) => {
    sent.push({ method: req.method, path: new URL(req.url).pathname, headers: new Headers(req.headers) });
    const withCookie = new Request(req, { headers: new Headers(req.headers) });
    withCookie.headers.set('cookie', cookie);
    return fetch(withCookie);
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    base = (await listen(t.app))('http://annotary.test');
    const res = await fetch(`${base}/v2/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: t.ownerKey }),
    });
    expect(res.status).toBe(200);
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    csrf = ((await res.json()) as { data: { csrfToken: string } }).data.csrfToken;
    expect(cookie).toMatch(/^annotary_session=/);
  });
  afterAll(() => t.close());

  it('reads without a key or CSRF header and writes with the session CSRF token', async () => {
    const client = new Transport({ baseUrl: `${base}/v2`, fetch: browserFetch, cookieMode: { csrfToken: () => csrf } });
    sent.length = 0;
    const created = await client.unwrap<{ project: { _id: string; name: string } }>(
      'POST',
      '/v2/project',
      client.api.POST('/v2/project', { body: { name: 'From the console' } }),
    );
    expect(created.project.name).toBe('From the console');
    const list = await client.unwrap<{ total: number }>(
      'GET',
      '/v2/listProjects',
      client.api.GET('/v2/listProjects', { params: { query: { name: 'console' } } }),
    );
    expect(list.total).toBe(1);
    expect(sent.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/v2/project'],
      ['GET', '/v2/listProjects'],
    ]);
    expect(sent[0]?.headers.get(CSRF_HEADER)).toBe(csrf);
    expect(sent[1]?.headers.get(CSRF_HEADER)).toBeNull();
    for (const r of sent) expect(r.headers.get('apikey')).toBeNull();
  });

  it('is refused on a write without the token, and the error says why', async () => {
    const noToken = new Transport({
      baseUrl: `${base}/v2`,
      fetch: browserFetch,
      cookieMode: { csrfToken: () => undefined },
    });
    const write = noToken.unwrap('POST', '/v2/project', noToken.api.POST('/v2/project', { body: { name: 'Forged' } }));
    await expect(write).rejects.toBeInstanceOf(AnnotaryError);
    await expect(write).rejects.toMatchObject({ status: 403 });
    const names = await t.call('GET', '/v2/listProjects?name=Forged');
    expect(names.json().data.total).toBe(0);
  });
});
