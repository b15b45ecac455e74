import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importedRows, postInPieces } from '../helpers/imports.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * POST /project/{id}/cloud reads its body as a stream (src/http/import-body.ts) and writes the
 * assets as they arrive: whatever is wrong with the body, wherever it is (after chunks were
 * written), nothing is written and the answer is the envelope the whole-body path gave.
 */
describe.each(ENGINES)('imports read as a stream, on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  const many = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({
      data: `https://cdn.example.com/${tag}/${i}.jpg`,
      externalId: `${tag}-${i}`,
    }));
  const counts = () => importedRows(t);
  const cloud = (body: unknown, headers?: Record<string, string>) =>
    t.call('POST', `/v2/project/${projectId}/cloud`, { body, ...(headers ? { headers } : {}) });
  const refused = async (body: unknown, status: number, headers?: Record<string, string>) => {
    const before = await counts();
    const res = await cloud(body, headers);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
    expect(res.json().status).toBe('fail');
    expect(await counts()).toEqual(before);
    return res.json() as { message: string; errors?: { field: string; message: string }[] };
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BODY_LIMIT: String(2 * 1024 * 1024) } });
    await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000 }).execute();
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Stream' } })).json().data.project._id;
  });
  afterAll(() => t.close());

  it('a bad item in the middle of a large body: 400 naming it, nothing written', async () => {
    const assets: unknown[] = many(12_000, 'mid');
    assets[7_321] = { data: 42, externalId: 'x' };
    const body = await refused({ assets }, 400);
    expect(body.errors).toEqual([{ field: 'assets[7321].data', message: 'must be string' }]);
    const missing: unknown[] = many(12_000, 'mid');
    missing[9_000] = { externalId: 'no-data' };
    expect((await refused({ assets: missing }, 400)).errors).toEqual([
      { field: 'assets[9000].data', message: 'is required' },
    ]);
    const nul = many(12_000, 'nul');
    nul[11_999] = { data: 'https://cdn.example.com/x.jpg', externalId: 'a\u0000b' };
    expect((await refused({ assets: nul }, 400)).errors).toEqual([
      { field: 'assets[11999].externalId', message: 'must not contain NUL characters' },
    ]);
  });

  it('JSON that breaks after many good assets, or is cut short, or poisons a prototype: 400, nothing written', async () => {
    const text = JSON.stringify({ assets: many(10_000, 'broken') });
    const broken = await refused(`${text.slice(0, -2)},}`, 400);
    expect(broken.message).toBe('the request body is not valid JSON');
    expect((await refused(text.slice(0, -100), 400)).message).toBe('the request body is not valid JSON');
    const poisoned = `${text.slice(0, -2)},{"data":"https://cdn.example.com/p.jpg","__proto__":{"x":1}}]}`;
    expect((await refused(poisoned, 400)).message).toBe('the request body is not valid JSON');
  });

  it('a body over the limit: 413 whether its length is declared or it comes in chunks', async () => {
    const big = { assets: many(40_000, 'big') };
    expect((await refused(big, 413)).message).toBe('the request body is larger than the server accepts');
    // Chunked, with no Content-Length: counted as it streams in, after chunks were written.
    const before = await counts();
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    {
      const url = `${address}/v2/project/${projectId}/cloud`;
      // A pause once past the limit: the server reads on and answers once the body has all come.
      const pause = { after: 2.5 * 1024 * 1024, ms: 400 };
      const res = await postInPieces(url, t.ownerKey, JSON.stringify(big), 64 * 1024, { pause });
      expect(res.status, res.body).toBe(413);
      // The rest of the body is let through before the answer ("lingering close"), so a client
      // still sending on a connection that then closes is not reset before it reads the 413.
      expect(res.early).toBe(false);
      expect(JSON.parse(res.body)).toEqual({
        status: 'fail',
        message: 'the request body is larger than the server accepts',
      });
      // A declared length over the limit is known at once; the answer still waits for the body.
      const declared = await postInPieces(url, t.ownerKey, JSON.stringify(big), 64 * 1024, {
        pause: { after: 1024 * 1024, ms: 400 },
        declared: true,
      });
      expect(declared.status, declared.body).toBe(413);
      expect(declared.early).toBe(false);
      expect(JSON.parse(declared.body)).toMatchObject({ status: 'fail' });
    }
    expect(await counts()).toEqual(before);
  });
});

describe.each(ENGINES)('the streamed import body, field by field, on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  const cloud = (body: unknown, headers?: Record<string, string>) =>
    t.call('POST', `/v2/project/${projectId}/cloud`, { body, ...(headers ? { headers } : {}) });
  const asset = (name: string) => ({ data: `https://cdn.example.com/${name}.jpg` });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Fields' } })).json().data.project._id;
  });
  afterAll(() => t.close());

  it('checks the request-wide fields as the schema does', async () => {
    const fields = async (body: unknown, headers?: Record<string, string>) => {
      const res = await cloud(body, headers);
      expect(res.statusCode, res.body).toBe(400);
      return res.json().errors as { field: string; message: string }[];
    };
    expect(await fields({})).toEqual([{ field: 'assets', message: 'is required' }]);
    expect(await fields({ assets: null })).toEqual([{ field: 'assets', message: 'is required' }]);
    expect(await fields({ assets: [] })).toEqual([{ field: 'assets', message: 'must not have fewer than 1 items' }]);
    expect(await fields({ assets: 'x' })).toEqual([{ field: 'assets', message: 'must be array' }]);
    expect(await fields({ assets: { 0: asset('o') } })).toEqual([{ field: 'assets', message: 'must be array' }]);
    expect(await fields({ assets: [null] })).toEqual([{ field: 'assets[0]', message: 'must be object' }]);
    expect(await fields({ priority: 5000, assets: [asset('p')] })).toEqual([
      { field: 'priority', message: 'must be <= 1000' },
    ]);
    expect(await fields({ assets: [asset('p')], priority: 1.5 })).toEqual([
      { field: 'priority', message: 'must be integer' },
    ]);
    expect(await fields([asset('a')])).toEqual([{ field: 'body', message: 'must be object' }]);
    expect(await fields('  ')).toEqual([{ field: 'body', message: 'must be object' }]);
    expect(await fields('abc', { 'content-type': 'text/plain' })).toEqual([
      { field: 'body', message: 'must be object' },
    ]);
  });

  it('takes uploadLocal: true after the assets as content, as before them ([client] key order)', async () => {
    const late = await cloud({ assets: [{ data: '<p>late</p>', externalId: 'late' }], priority: 4, uploadLocal: true });
    expect(late.statusCode, late.body).toBe(201);
    const [made] = late.json().data.assets as { taskId: string; externalId: string }[];
    expect(made?.externalId).toBe('late');
    const task = (await t.call('GET', `/v2/task/${made?.taskId}`)).json().data.task;
    expect(task.priority).toBe(4);
    const served = await t.app.inject({ method: 'GET', url: new URL(task.asset.data as string).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe('<p>late</p>');
    // Links read first are not kept: one asset, the content one.
    const listed = await t.call('GET', `/v2/project/${projectId}/tasks?limit=1000`);
    expect(listed.json().data.tasks.filter((x: { externalId: string }) => x.externalId === 'late')).toHaveLength(1);
    // Refusals still come from the streamed checks: a bad asset after which uploadLocal comes.
    const bad = await cloud({ assets: [{ data: 5 }], uploadLocal: true });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().errors[0].field).toBe('assets[0].data');
  });

  it('takes priority and unknown fields before or after the assets, and nulls as absent', async () => {
    const before = await cloud({ projectId, priority: 7, assets: [asset('before')], extra: { deep: [1, 2] } });
    expect(before.statusCode, before.body).toBe(201);
    const after = await cloud({ assets: [asset('after1'), asset('after2')], priority: -3, uploadLocal: null });
    expect(after.statusCode, after.body).toBe(201);
    const none = await cloud({ assets: [{ ...asset('none'), externalId: null }], priority: null });
    expect(none.statusCode, none.body).toBe(201);
    expect(none.json().data.assets[0].externalId).toBe('none.jpg');
    const priorityOf = async (taskId: string) => (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.priority;
    expect(await priorityOf(before.json().data.assets[0].taskId)).toBe(7);
    for (const a of after.json().data.assets) expect(await priorityOf(a.taskId)).toBe(-3);
    expect(await priorityOf(none.json().data.assets[0].taskId)).toBe(0);
    expect(after.json()).toEqual({
      status: 'success',
      data: {
        assetsCreated: 2,
        assets: after.json().data.assets.map((a: { _id: string; taskId: string; externalId: string }) => ({
          _id: a._id,
          externalId: a.externalId,
          taskId: a.taskId,
        })),
      },
    });
    expect(after.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});
