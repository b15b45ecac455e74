import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
const MAX_PAGE = 1_000_000;
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Issue 13, items 1 to 3: no 5xx from bad input, one envelope for every error whatever raised
 * it, 405 with Allow for a known path asked with a wrong method, and no answer erased by an
 * annotate body that forgot it.
 */
function expectEnvelope(res: { statusCode: number; body: string }, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body.status).toBe('fail');
  expect(typeof body.message).toBe('string');
  for (const key of ['error', 'code', 'statusCode']) expect(body).not.toHaveProperty(key);
  return body;
}

describe.each(ENGINES)('hostile requests on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskId: string;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BODY_LIMIT: '2048' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Target' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }] },
    });
    taskId = imported.json().data.assets[0].taskId;
  });
  afterAll(() => t.close());

  const lists = () => [
    '/v2/listProjects',
    '/v2/storages',
    '/v2/plugins',
    `/v2/pluginLog?project=${projectId}`,
    `/v2/issues?project=${projectId}`,
    `/v2/project/${projectId}/assets`,
    `/v2/project/${projectId}/tasks`,
    `/v2/project/${projectId}/webhookLogs`,
  ];

  it('bounds page on every list: over the bound is a 400 naming page, past the end an empty list', async () => {
    for (const list of lists()) {
      const sep = list.includes('?') ? '&' : '?';
      const huge = await t.call('GET', `${list}${sep}page=99999999999999999999`);
      expect(expectEnvelope(huge, 400).errors, list).toEqual([{ field: 'page', message: `must be <= ${MAX_PAGE}` }]);
      const last = await t.call('GET', `${list}${sep}page=${MAX_PAGE}&limit=100`);
      expect(last.statusCode, `${list} ${last.body}`).toBe(200);
      const data = last.json().data as Record<string, unknown>;
      const items = Object.values(data).find(Array.isArray);
      expect(items, list).toEqual([]);
    }
  });

  it('answers a broken, missing or cut-short multipart body with a 400 naming the body', async () => {
    const cut = '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc';
    for (const path of ['instructions', 'chat']) {
      for (const [contentType, body] of [
        ['multipart/form-data', 'xxx'],
        ['multipart/form-data; boundary=', '--\r\n'],
        ['multipart/form-data; boundary=yy', '--zz\r\nnot a part'],
        ['multipart/form-data; boundary=zz', cut],
        ['multipart/form-data; boundary=zz', cut.replace('a.txt', 'a.png')],
      ] as const) {
        const res = await t.call('POST', `/v2/project/${projectId}/${path}`, {
          body,
          headers: { 'content-type': contentType },
        });
        const err = expectEnvelope(res, 400);
        expect(err.errors, `${path} ${contentType}`).toEqual([{ field: 'body', message: expect.any(String) }]);
      }
    }
  });

  it('answers the errors the framework raises before our handlers in the envelope', async () => {
    expectEnvelope(await t.call('GET', '/v2/project/%FF'), 400);
    expectEnvelope(await t.call('GET', `/v2/project/${'a'.repeat(201)}`), 414);
    expectEnvelope(await t.call('POST', '/v2/project', { body: 'x', headers: { 'content-type': 'text/x-nope' } }), 415);
    expectEnvelope(await t.call('POST', '/v2/project', { body: '{"name":' }), 400);
    expectEnvelope(await t.call('POST', '/v2/project', { body: { name: 'x'.repeat(4096) } }), 413);
    expectEnvelope(await t.call('GET', '/v2/no-such-route'), 404);
  });

  it('answers a known path with a wrong method 405 and Allow, with or without a key', async () => {
    for (const key of [undefined, null]) {
      const put = await t.call('PUT', `/v2/project/${projectId}`, key === null ? { key } : {});
      expectEnvelope(put, 405);
      expect(put.headers.allow).toBe('GET, HEAD, POST, DELETE');
    }
    const del = await t.call('DELETE', '/v2/listProjects');
    expectEnvelope(del, 405);
    expect(del.headers.allow).toBe('GET, HEAD');
    const get = await t.call('GET', '/v2/project');
    expectEnvelope(get, 405);
    expect(get.headers.allow).toBe('POST');
  });

  it('answers a request that is not HTTP on a real socket in the envelope', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = new URL(address).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ status: 'fail', message: 'bad request' });
  });

  it('refuses an annotate body without answer, keeps the saved answer, clears only when told', async () => {
    const classifications: unknown[] = [];
    const saved = await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: { tools: [], classifications } } });
    expect(saved.statusCode, saved.body).toBe(200);
    const before = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer;
    for (const body of [{}, { duration: 500 }]) {
      const res = await t.call('POST', `/v2/annotate/${taskId}`, { body });
      expect(expectEnvelope(res, 400).errors).toEqual([
        { field: 'answer', message: expect.stringContaining('required') },
      ]);
    }
    // No body at all: the body itself is what is missing.
    const empty = await t.call('POST', `/v2/annotate/${taskId}`);
    expect(expectEnvelope(empty, 400).errors).toEqual([{ field: 'body', message: expect.any(String) }]);
    const brush = await t.call('POST', `/v2/annotate/${taskId}`, { body: { brushDataUrl: '' } });
    expect(brush.statusCode, brush.body).toBe(200);
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.answer).toEqual(before);
    expect(task.brushDataUrl).toBeNull();
    const cleared = await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: {} } });
    expect(cleared.statusCode).toBe(200);
  });
});
