import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';

// Start must hold tasks for pre-labels to land: autoForward off.
const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = streetOntology({ weatherRequired: true, sunOnly: true });
const box = (x: number) => ({ schemaId: 'car', 'bounding-box': { x, y: 0, width: 10, height: 10 } });

describe.each(ENGINES)('pre-labels on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let assets: { _id: string; externalId: string; taskId: string }[];
  let users: RoleUsers;

  const task = async (i: number) => (await t.call('GET', `/v2/task/${assets[i]?.taskId}`)).json().data.task;
  const send = (jsonContent: unknown, key?: string) =>
    t.call('POST', '/v2/import/labels', { body: { project: projectId, jsonContent }, ...(key ? { key } : {}) });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Pre-labels' } })).json().data.project._id;
    const upd = await t.call('POST', `/v2/project/${projectId}`, {
      body: { stages: STAGES, categorySchema: ONTOLOGY },
    });
    expect(upd.statusCode).toBe(200);
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => ({ data: `https://cdn.example.com/${n}.jpg` })) },
    });
    assets = res.json().data.assets;
    // d leaves Start: pre-labels no longer apply to it.
    const fwd = await t.call('POST', `/v2/project/${projectId}/forward`, {
      body: { stageId: 'Start', taskIds: [assets[3]?.taskId] },
    });
    expect(fwd.statusCode).toBe(200);
    users = await addRoleUsers(t, projectId, engine);
  });
  afterAll(() => t.close());

  it('pre-labels tasks in Start and reports the others as skipped', async () => {
    const res = await send([
      { externalId: 'a.jpg', objects: [box(1)], classifications: [{ schemaId: 'weather', answer: 'sun' }] },
      { assetId: assets[1]?._id, tools: [box(2)] },
      { externalId: 'missing.jpg', objects: [] },
      { externalId: 'd.jpg', objects: [box(4)] },
      // The same asset twice: the last item wins.
      { externalId: 'e.jpg', objects: [box(5)] },
      { externalId: 'e.jpg', objects: [box(6), box(7)] },
    ]);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.imported).toBe(3);
    expect(data.skipped).toEqual([
      expect.objectContaining({ index: 2, externalId: 'missing.jpg', reason: 'not_found' }),
      expect.objectContaining({ index: 3, externalId: 'd.jpg', reason: 'not_in_start' }),
      expect.objectContaining({ index: 4, externalId: 'e.jpg', reason: 'duplicate' }),
    ]);
    const a = await task(0);
    expect(a).toMatchObject({ stage: 'Start', isPreLabeled: true });
    expect(a.answer.tools[0]).toMatchObject({ schemaId: 'car', 'bounding-box': { x: 1 } });
    expect(typeof a.answer.tools[0].objectId).toBe('string');
    expect(a.answer.classifications).toEqual([{ schemaId: 'weather', answer: 'sun' }]);
    expect((await task(1)).answer.tools).toHaveLength(1);
    expect((await task(3)).isPreLabeled).toBe(false);
    const e = await task(4);
    expect(e.answer.tools.map((o: { 'bounding-box': { x: number } }) => o['bounding-box'].x)).toEqual([6, 7]);
    const listed = await t.call(
      'GET',
      `/v2/project/${projectId}/assets?filters=${encodeURIComponent('{"isPreLabeled":true}')}`,
    );
    expect(listed.json().data.total).toBe(3);
  });

  it('takes jsonContent as a JSON string too', async () => {
    const res = await send(JSON.stringify([{ externalId: 'c.jpg', objects: [box(3)], relations: null }]));
    expect(res.json().data).toEqual({ imported: 1, skipped: [] });
    expect((await task(2)).isPreLabeled).toBe(true);
  });

  it('rejects the whole request on a schema error anywhere', async () => {
    const good = { externalId: 'f.jpg', objects: [box(1)] };
    const cases: [unknown, string][] = [
      [
        [good, good, good, { externalId: 'f.jpg', objects: [{ schemaId: 'car', 'bounding-box': { x: 1 } }] }],
        'jsonContent[3].objects[0].bounding-box',
      ],
      [[good, { externalId: 'f.jpg', tools: [{ schemaId: 'truck' }] }], 'jsonContent[1].tools[0].schemaId'],
      [
        [good, { externalId: 'f.jpg', classifications: [{ schemaId: 'mood' }] }],
        'jsonContent[1].classifications[0].schemaId',
      ],
      [[good, { objects: [] }], 'jsonContent[1].externalId'],
      [[good, { externalId: 7 }], 'jsonContent[1].externalId'],
      [[good, { externalId: 'f.jpg', objects: {} }], 'jsonContent[1].objects'],
      [[good, 'f.jpg'], 'jsonContent[1]'],
      ['[{"externalId": "f.jpg"', 'jsonContent'],
      ['{"externalId": "f.jpg"}', 'jsonContent'],
      [{ externalId: 'f.jpg' }, 'jsonContent'],
    ];
    for (const [jsonContent, field] of cases) {
      const res = await send(jsonContent);
      expect(res.statusCode, JSON.stringify(jsonContent)).toBe(400);
      expect(res.json().errors[0].field).toBe(field);
    }
    expect((await task(5)).isPreLabeled).toBe(false);
    const noProject = await t.call('POST', '/v2/import/labels', { body: { jsonContent: [good] } });
    expect(noProject.json().errors[0].field).toBe('project');
  });

  it("skips an item whose page lies past its video's frames or its paged asset's pages, and refuses a negative one", async () => {
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/clip.mp4', externalId: 'clip', metadata: { frameTotal: 60, frameRate: 30 } },
          {
            data: 'https://cdn.example.com/p1.png',
            externalId: 'pages',
            dataset: [
              'https://cdn.example.com/p1.png',
              'https://cdn.example.com/p2.png',
              'https://cdn.example.com/p3.png',
            ],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const onPage = (page: number) => ({ ...box(1), objectId: 'o1', page });
    const sent = await send([
      { externalId: 'clip', objects: [onPage(0), onPage(59)] },
      { externalId: 'pages', objects: [onPage(0), onPage(3)] },
    ]);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data.imported).toBe(1);
    expect(sent.json().data.skipped).toEqual([
      {
        index: 1,
        externalId: 'pages',
        reason: 'page_outside',
        message: 'tools[1].page is 3; the asset has 3 frames or pages (page counts from 0)',
      },
    ]);
    const beyond = await send([{ externalId: 'clip', objects: [onPage(0), onPage(60)] }]);
    expect(beyond.json().data.skipped).toEqual([
      expect.objectContaining({ index: 0, reason: 'page_outside', message: expect.stringContaining('has 60 frames') }),
    ]);
    const negative = await send([{ externalId: 'clip', objects: [onPage(-1)] }]);
    expect(negative.statusCode).toBe(400);
    expect(negative.json().errors[0].field).toBe('jsonContent[0].objects[0].page');
  });

  it('skips a consensus copy', async () => {
    // Copies are made by a Consensus stage; one is simulated here by marking f's task as a copy.
    await t.store.db
      .updateTable('tasks')
      .set({ type: 'consensus' })
      .where('id', '=', assets[5]?.taskId ?? '')
      .execute();
    const res = await send([{ externalId: 'f.jpg', objects: [box(1)] }]);
    expect(res.json().data.skipped).toEqual([expect.objectContaining({ index: 0, reason: 'consensus_copy' })]);
    await t.store.db
      .updateTable('tasks')
      .set({ type: 'default' })
      .where('id', '=', assets[5]?.taskId ?? '')
      .execute();
  });

  it('needs the import permission: Manager, Lead, org admin; not Reviewer or Labeler; 404 outside', async () => {
    const items = [{ externalId: 'f.jpg', objects: [box(9)] }];
    expect((await send(items, users.key.Reviewer)).statusCode).toBe(403);
    expect((await send(items, users.key.Labeler)).statusCode).toBe(403);
    expect((await send(items, users.key.outsider)).statusCode).toBe(404);
    expect((await task(5)).isPreLabeled).toBe(false);
    for (const caller of ['Manager', 'Lead', 'admin'] as const) {
      const res = await send(items, users.key[caller]);
      expect(res.statusCode, caller).toBe(200);
      expect(res.json().data.imported).toBe(1);
    }
    expect((await task(5)).updatedBy).toBe(users.email.admin);
  });
});
