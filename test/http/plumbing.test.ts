import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('contract plumbing on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BODY_LIMIT: String(64 * 1024) } });
  });
  afterAll(() => t.close());

  it('answers /healthz without a key once the store answers', async () => {
    const res = await t.call('GET', '/healthz', { key: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', data: { store: engine, deployment: 'eu' } });
  });

  it('refuses a missing key and a wrong key with 401 and the fail envelope', async () => {
    const missing = await t.call('GET', '/v2/listProjects', { key: null });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('missing') });
    const wrong = await t.call('GET', '/v2/listProjects', { key: 'ak_not-a-real-key' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ status: 'fail', message: 'invalid API key' });
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const res = await t.call('GET', '/v2/no/such/route');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'fail' });
  });

  it('answers malformed JSON with 400 and a body over the limit with 413', async () => {
    const bad = await t.call('POST', '/v2/project', {
      body: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ status: 'fail', message: 'the request body is not valid JSON' });
    const big = await t.call('POST', '/v2/project', { body: { name: 'x', description: 'y'.repeat(70 * 1024) } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ status: 'fail' });
  });

  it('takes a GET with a JSON content type and no body, as clients with default headers send', async () => {
    const res = await t.call('GET', '/v2/listProjects', { headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(200);
  });

  it('names every invalid field with its path', async () => {
    const res = await t.call('POST', '/v2/project', { body: { name: 5, type: 'video' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.status).toBe('fail');
    expect(body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'type']);
  });

  it('collapses repeated slashes and accepts a trailing slash', async () => {
    const created = await t.call('POST', '/v2/project', { body: { name: 'Slashes' } });
    const id = created.json().data.project._id as string;
    expect((await t.call('GET', `/v2//project/${id}`)).statusCode).toBe(200);
    expect((await t.call('GET', `/v2/project/${id}/`)).statusCode).toBe(200);
  });

  it('serves the OpenAPI 3.1 document and the docs page without a key', async () => {
    const doc = await t.call('GET', '/v2/openapi.json', { key: null });
    expect(doc.statusCode).toBe(200);
    const spec = doc.json();
    expect(spec.openapi).toBe('3.1.0');
    // The server URL is the host; paths carry the /v2 prefix.
    expect(spec.servers[0].url).toBe('http://annotary.test');
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/v2/listProjects', '/v2/project/{projectId}']));
    expect(spec.paths['/v2/project'].post.requestBody).toBeDefined();
    const page = await t.call('GET', '/docs/', { key: null });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('serves the docs page, built on its first request, with its files and the same document', async () => {
    const [first, second] = await Promise.all([
      t.call('GET', '/docs/json', { key: null }),
      t.call('GET', '/docs/json', { key: null }),
    ]);
    const doc = await t.call('GET', '/v2/openapi.json', { key: null });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual(doc.json());
    expect(second.body).toBe(first.body);
    const script = await t.call('GET', '/docs/static/swagger-ui-bundle.js', { key: null });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(Number(script.headers['content-length'])).toBe(script.rawPayload.length);
    const again = await t.call('GET', '/docs/static/swagger-ui-bundle.js', {
      key: null,
      headers: { 'if-none-match': String(script.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect((await t.call('HEAD', '/docs/', { key: null })).statusCode).toBe(200);
    // Paths the page does not have get the app's own 404 envelope.
    const missing = await t.call('GET', '/docs/static/no-such-file.js', { key: null });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'fail' });
    expect((await t.call('POST', '/docs', { key: null })).statusCode).toBe(405);
  });

  it('treats an optional field sent as null as absent', async () => {
    const res = await t.call('POST', '/v2/project', { body: { name: 'Nulls', description: null, type: null } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.project).toMatchObject({ description: '', type: 'standard' });
  });
});
