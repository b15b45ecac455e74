import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('attachments on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let users: RoleUsers;

  const attachmentsOf = async () => {
    const assets = (await t.call('GET', `/v2/project/${projectId}/assets?limit=100`)).json().data.assets;
    return Object.fromEntries(
      assets.map((a: { externalId: string; attachments: unknown[] }) => [a.externalId, a.attachments]),
    ) as Record<string, { type: string; value: string }[]>;
  };
  const send = (attachments: unknown[], key?: string) =>
    t.call('POST', '/v2/attachments', { body: { project: projectId, attachments }, ...(key ? { key } : {}) });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Attachments' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/a.jpg' },
          { data: 'https://cdn.example.com/b.jpg', externalId: 'bee' },
          { data: 'https://cdn.example.com/c.jpg' },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    users = await addRoleUsers(t, projectId, engine);
  });
  afterAll(() => t.close());

  it('appends attachments to assets found by externalId, then by data', async () => {
    const res = await send([
      {
        externalId: 'a.jpg',
        attachments: [
          { type: 'IMAGE', value: 'https://cdn.example.com/extra/a-side.PNG?X-Amz-Signature=abc' },
          { type: 'TEXT', value: 'Shot at dusk' },
        ],
      },
      // No such externalId: found by its URL instead.
      {
        externalId: 'unknown',
        data: 'https://cdn.example.com/b.jpg',
        attachments: [{ type: 'VIDEO', value: 'https://cdn.example.com/clip.mp4' }],
      },
      { data: 'https://cdn.example.com/b.jpg', attachments: [{ type: 'IMAGE', value: 'http://x.test/b.jpeg' }] },
    ]);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ assets: 2, attachments: 4, duplicates: 0 });
    const stored = await attachmentsOf();
    expect(stored['a.jpg']).toEqual([
      { type: 'IMAGE', value: 'https://cdn.example.com/extra/a-side.PNG?X-Amz-Signature=abc' },
      { type: 'TEXT', value: 'Shot at dusk' },
    ]);
    expect(stored.bee).toEqual([
      { type: 'VIDEO', value: 'https://cdn.example.com/clip.mp4' },
      { type: 'IMAGE', value: 'http://x.test/b.jpeg' },
    ]);
    expect(stored['c.jpg']).toEqual([]);
  });

  it('does not duplicate an attachment sent again', async () => {
    const res = await send([
      {
        externalId: 'a.jpg',
        attachments: [
          { type: 'TEXT', value: 'Shot at dusk' },
          { type: 'TEXT', value: 'Second note' },
          { type: 'TEXT', value: 'Second note' },
        ],
      },
    ]);
    expect(res.json().data).toEqual({ assets: 1, attachments: 1, duplicates: 2 });
    expect((await attachmentsOf())['a.jpg']).toHaveLength(3);
  });

  it('refuses a bad attachment anywhere and writes nothing', async () => {
    const before = await attachmentsOf();
    const good = { externalId: 'c.jpg', attachments: [{ type: 'TEXT', value: 'fine' }] };
    const cases: [unknown, string][] = [
      [{ externalId: 'c.jpg', attachments: [{ type: 'IMAGE', value: 'https://cdn.example.com/x.gif' }] }, 'value'],
      [{ externalId: 'c.jpg', attachments: [{ type: 'VIDEO', value: 'https://cdn.example.com/x.mov' }] }, 'value'],
      [{ externalId: 'c.jpg', attachments: [{ type: 'IMAGE', value: 'not a url.png' }] }, 'value'],
      [{ externalId: 'c.jpg', attachments: [{ type: 'IMAGE', value: 'ftp://cdn.example.com/x.png' }] }, 'value'],
      [{ externalId: 'c.jpg', attachments: [{ type: 'TEXT', value: '   ' }] }, 'value'],
      [{ externalId: 'c.jpg', attachments: [{ type: 'AUDIO', value: 'x' }] }, 'type'],
    ];
    for (const [bad, leaf] of cases) {
      const res = await send([good, good, bad]);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().errors[0].field).toBe(`attachments[2].attachments[0].${leaf}`);
    }
    const missing = await send([good, { externalId: 'nope', attachments: good.attachments }]);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('attachments[1].externalId');
    const byData = await send([good, { data: 'https://cdn.example.com/zzz.jpg', attachments: good.attachments }]);
    expect(byData.json().errors[0].field).toBe('attachments[1].data');
    const neither = await send([{ attachments: good.attachments }]);
    expect(neither.json().errors[0].field).toBe('attachments[0].externalId');
    const noProject = await t.call('POST', '/v2/attachments', { body: { attachments: [good] } });
    expect(noProject.json().errors[0].field).toBe('project');
    const empty = await send([{ externalId: 'c.jpg', attachments: [] }]);
    expect(empty.json().errors[0].field).toBe('attachments[0].attachments');
    expect(await attachmentsOf()).toEqual(before);
  });

  it('needs the import permission: Manager, Lead, org admin; not Reviewer or Labeler; 404 outside', async () => {
    const item = (value: string) => [{ externalId: 'c.jpg', attachments: [{ type: 'TEXT', value }] }];
    expect((await send(item('by manager'), users.key.Manager)).statusCode).toBe(201);
    expect((await send(item('by lead'), users.key.Lead)).statusCode).toBe(201);
    expect((await send(item('by admin'), users.key.admin)).statusCode).toBe(201);
    expect((await send(item('by reviewer'), users.key.Reviewer)).statusCode).toBe(403);
    expect((await send(item('by labeler'), users.key.Labeler)).statusCode).toBe(403);
    const outside = await send(item('by outsider'), users.key.outsider);
    expect(outside.statusCode).toBe(404);
    expect(outside.json().status).toBe('fail');
    expect((await attachmentsOf())['c.jpg']?.map((a) => a.value)).toEqual(['by manager', 'by lead', 'by admin']);
  });
});
