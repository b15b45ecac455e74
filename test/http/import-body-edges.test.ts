import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importedRows, postInPieces } from '../helpers/imports.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * The edges of POST /project/{id}/cloud's body as its scanner reads it (src/http/import-scan.ts):
 * strings holding quotes, brackets and escapes, characters of several bytes cut between two
 * pieces of the body, JSON whitespace anywhere; and faults in the middle of a long array, which
 * answer as the whole-body parser did and write nothing.
 */
describe.each(ENGINES)('the import body, edge by edge, on %s', (engine) => {
  let t: TestApp;
  let address: string;
  const counts = () => importedRows(t);
  const newProject = async (name: string) =>
    (await t.call('POST', '/v2/project', { body: { name } })).json().data.project._id as string;
  const stored = async (projectId: string) =>
    (
      await t.store.db
        .selectFrom('assets')
        .select(['external_id', 'data', 'metadata'])
        .where('project_id', '=', projectId)
        .execute()
    )
      .map((a) => ({ externalId: a.external_id, data: a.data, metadata: a.metadata && JSON.parse(a.metadata) }))
      .sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
  const post = (projectId: string, text: string, size: number) =>
    postInPieces(`${address}/v2/project/${projectId}/cloud`, t.ownerKey, text, size);
  const refused = async (projectId: string, body: string, status: number) => {
    const before = await counts();
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
    expect(await counts()).toEqual(before);
    return res.json() as { status: string; message: string; errors?: { field: string; message: string }[] };
  };
  const many = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({
      data: `https://cdn.example.com/${tag}/${i}.jpg`,
      externalId: `${tag}-${i}`,
    }));

  const tricky = [
    {
      data: 'https://cdn.example.com/a.jpg',
      externalId: 'quote " brace } { bracket ] [ comma , colon : backslash \\ slash /',
      metadata: { note: '\\"}]{[', nested: { list: [1, -2.5e3, true, false, 'x'] } },
    },
    { data: 'https://cdn.example.com/é/漢字.jpg', externalId: 'é 漢字 🎉 \u00e9\u2028', metadata: { emoji: '🎉🎉' } },
    { data: 'https://cdn.example.com/c.jpg', externalId: 'not a NUL: \\u0000', metadata: { empty: {}, none: [] } },
  ];

  beforeAll(async () => {
    t = await makeTestApp(engine);
    await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000 }).execute();
    address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => t.close());

  it('keeps strings with quotes, brackets, escapes and characters of several bytes as sent', async () => {
    const whole = await newProject('Whole');
    const res = await t.call('POST', `/v2/project/${whole}/cloud`, { body: { assets: tricky } });
    expect(res.statusCode, res.body).toBe(201);
    const want = tricky
      .map((a) => ({ externalId: a.externalId, data: a.data, metadata: a.metadata }))
      .sort((a, b) => (a.externalId < b.externalId ? -1 : 1));
    expect(await stored(whole)).toEqual(want);
    // The same body in pieces of 1, 3 and 7 bytes: every value and character cut somewhere.
    for (const size of [1, 3, 7]) {
      const cut = await newProject(`Cut ${size}`);
      const sent = await post(cut, JSON.stringify({ priority: 2, assets: tricky, extra: 'é"]}' }), size);
      expect(sent.status, sent.body).toBe(201);
      expect(await stored(cut)).toEqual(want);
    }
  });

  it('takes JSON whitespace anywhere between values', async () => {
    const projectId = await newProject('Spaces');
    const body = JSON.stringify({ priority: 1, assets: tricky.slice(0, 2), uploadLocal: false }, null, '\t').replaceAll(
      '\n',
      '\r\n',
    );
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: ` \r\n\t${body}\n ` });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.assetsCreated).toBe(2);
    expect((await refused(projectId, '{ "assets" : [ \r\n\t ] }', 400)).errors).toEqual([
      { field: 'assets', message: 'must not have fewer than 1 items' },
    ]);
  });

  it('refuses a fault in the middle of a long array with the whole-body answer, and writes nothing', async () => {
    const projectId = await newProject('Faults');
    const head = JSON.stringify(many(6_000, 'f')).slice(1, -1);
    const tail = JSON.stringify(many(6_000, 'g')).slice(1, -1);
    const body = (middle: string) => `{"assets":[${head},${middle},${tail}]}`;
    for (const middle of [
      '{"data":"https://cdn.example.com/x.jpg"},,{"data":"https://cdn.example.com/y.jpg"}',
      '{"data":"https://cdn.example.com/x.jpg"}{"data":"https://cdn.example.com/y.jpg"}',
      '{"data":"https://cdn.example.com/x.jpg","externalId":tru}',
      '{"data":"https://cdn.example.com/x.jpg","externalId":"a\\qb"}',
      '{"data":"https://cdn.example.com/x.jpg"]',
    ]) {
      expect((await refused(projectId, body(middle), 400)).message, middle).toBe('the request body is not valid JSON');
    }
    const deep = `{"data":"https://cdn.example.com/x.jpg","metadata":{"m":${'['.repeat(62)}${']'.repeat(62)}}}`;
    expect((await refused(projectId, body(deep), 400)).message).toBe('the request nests deeper than 64 levels');
    const nulAfter = `{"assets":[${head}],"extra":{"k":"a\\u0000b"}}`;
    expect((await refused(projectId, nulAfter, 400)).errors).toEqual([
      { field: 'extra', message: 'must not contain NUL characters' },
    ]);
    const nulItem = body('{"data":"https://cdn.example.com/x.jpg","metadata":{"k\\u0000":1}}');
    expect((await refused(projectId, nulItem, 400)).errors).toEqual([
      { field: 'assets[6000].metadata', message: 'property names must not contain NUL characters' },
    ]);
    // The same faults cut into pieces on a socket.
    const before = await counts();
    const sent = await post(projectId, body('{"data":"https://cdn.example.com/x.jpg"},,{"data":"z"}'), 4093);
    expect(sent.status, sent.body).toBe(400);
    expect(JSON.parse(sent.body).message).toBe('the request body is not valid JSON');
    expect(await counts()).toEqual(before);
  });
});
