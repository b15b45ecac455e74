import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { BOX, type ExportFixture, exportFixture } from '../helpers/export-fixture.js';
import { download, onServer, unzip } from '../helpers/exports.js';
import type { RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

type Item = Record<string, unknown> & { externalId: string; task: Record<string, unknown> };

// The export names what answers hold, as the original's export documents it: tool titles, and
// classification titles, kinds and option values (the stored answer keeps the option's id).
const BOX_OUT = { ...BOX, title: 'Car' };
const SUN_OUT = { schemaId: 'weather', tool: 'radio', title: 'Weather', answer: 'Sunny' };

describe.each(ENGINES)('exports on %s', (engine) => {
  let clock: ExportFixture['clock'];
  let t: TestApp;
  let base: string;
  let projectId: string;
  let ids: { tasks: string[]; assets: string[]; batches: Record<string, string> };
  let users: RoleUsers;
  let ownerEmail: string;

  const exportOf = async (query: string) => {
    const res = await t.call('GET', `/v2/exportV3?project=${projectId}&${query}`);
    expect(res.statusCode, res.body).toBe(200);
    const link = res.json().data.exportPath as string;
    const got = await download(link, base);
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/zip');
    return { link, entries: await unzip(got.body) };
  };
  const itemsOf = async (query: string): Promise<Item[]> => {
    const { entries } = await exportOf(query);
    return JSON.parse(entries[0]?.text ?? 'null') as Item[];
  };
  const externalIds = async (query: string) => (await itemsOf(query)).map((i) => i.externalId);

  beforeAll(async () => {
    ({ t, clock, base, projectId, ids, users, ownerEmail } = await exportFixture(engine));
  });
  afterAll(() => t.close());

  it('downloads a zip with no key whose first entry is a JSON array of every task, fields in full', async () => {
    const { link, entries } = await exportOf('');
    expect(link.startsWith('http://annotary.test/v2/exports/')).toBe(true);
    expect(entries.map((e) => e.name)).toEqual(['tasks.json']);
    const items = JSON.parse(entries[0]?.text ?? '') as Item[];
    expect(items.map((i) => i.externalId)).toEqual(['a.jpg', 'bee', 'c.jpg', 'd.jpeg']);
    const [a, b] = items;
    expect(a).toEqual({
      asset: 'https://cdn.example.com/img/a.jpg',
      assetId: ids.assets[0],
      externalId: 'a.jpg',
      dataset: [],
      metadata: { width: 640, height: 480 },
      batches: ['first'],
      contextData: { camera: 'front' },
      task: {
        taskId: ids.tasks[0],
        stage: 'Finished',
        stageId: 'done',
        updatedAt: '2025-03-01T12:00:00.000Z',
        updatedBy: ownerEmail,
        tools: [BOX_OUT],
        classifications: [SUN_OUT],
        relations: [],
        brushDataUrl: null,
        medicalBrushDataUrl: null,
        stageHistory: [
          expect.objectContaining({
            stage: 'Labeling',
            stageId: 'lbl',
            duration: 1200,
            idleDuration: 0,
            completedAt: '2025-03-01T12:00:00.000Z',
            completedBy: ownerEmail,
            submittedBy: ownerEmail,
            reviewStatus: null,
            consensusId: null,
            isSkipped: false,
            tools: [BOX_OUT],
            classifications: [SUN_OUT],
            relations: [],
          }),
          expect.objectContaining({ stage: 'QA', stageId: 'rev', duration: 300, reviewStatus: 'Accepted' }),
        ],
        totalDuration: 1500,
        consensusAverage: 81.25,
      },
    });
    const history = (a?.task.stageHistory ?? []) as { _id: string; taskHistory: string }[];
    expect(history.every((h) => /^[0-9a-f]{24}$/.test(h._id) && h.taskHistory === h._id)).toBe(true);
    expect(b).toMatchObject({
      externalId: 'bee',
      metadata: {},
      batches: ['first', 'second'],
      contextData: null,
      task: { stage: 'QA', stageId: 'rev', totalDuration: 50, consensusAverage: null },
    });
  });

  it('writes NDJSON: one item per line, every line ended', async () => {
    const { entries } = await exportOf('format=ndjson');
    expect(entries[0]?.name).toBe('tasks.ndjson');
    const text = entries[0]?.text ?? '';
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as Item).externalId)).toEqual(['a.jpg', 'bee', 'c.jpg', 'd.jpeg']);
  });

  it('filters by stage id and by stage name, JSON list or JSON string', async () => {
    expect(await externalIds(`stage=${encodeURIComponent('["done"]')}`)).toEqual(['a.jpg']);
    expect(await externalIds(`stage=${encodeURIComponent('["Finished"]')}`)).toEqual(['a.jpg']);
    expect(await externalIds(`stage=${encodeURIComponent('["QA","lbl"]')}`)).toEqual(['bee', 'c.jpg', 'd.jpeg']);
    expect(await externalIds(`stage=${encodeURIComponent('"Labeling"')}`)).toEqual(['c.jpg', 'd.jpeg']);
  });

  it('filters by batches (names or ids), status and time ranges', async () => {
    expect(await externalIds(`batches=${encodeURIComponent('["second"]')}`)).toEqual(['bee']);
    expect(await externalIds(`batches=${encodeURIComponent(JSON.stringify([ids.batches.first]))}`)).toEqual([
      'a.jpg',
      'bee',
    ]);
    expect(await externalIds('status=Completed')).toEqual(['a.jpg']);
    const after = encodeURIComponent(JSON.stringify({ $gt: '2025-03-01T10:30:00.000000Z' }));
    expect(await externalIds(`createdAt=${after}`)).toEqual(['c.jpg', 'd.jpeg']);
    const before = encodeURIComponent(JSON.stringify({ $lt: '2025-03-01T11:30:00Z' }));
    expect(await externalIds(`updatedAt=${before}`)).toEqual(['c.jpg', 'd.jpeg']);
  });

  it('leaves out metadata and history when asked, and accepts what the Python client sends', async () => {
    const items = await itemsOf(
      'includeMetadata=False&includeHistory=FALSE&sendEmail=false&doNotNotify=true&type=None' +
        `&taskTypes=${encodeURIComponent('["default"]')}&includeOnlyKeyFrames=false&includeIdleBlurDurations=false` +
        '&includeMask=true&includeSegmentationPoints=true',
    );
    expect(items).toHaveLength(4);
    expect(items[0]).not.toHaveProperty('metadata');
    expect(items[0]?.task).not.toHaveProperty('stageHistory');
    const res = await t.call('GET', `/v2/export?project=${projectId}&format=json`);
    expect(res.statusCode).toBe(200);
  });

  it('selects the kinds of task with taskTypes: consensus copies come with their parent and score', async () => {
    const copyId = 'f'.repeat(24);
    const parentId = ids.tasks[2] as string;
    await t.store.db.updateTable('tasks').set({ consensus_score: 0.75 }).where('id', '=', parentId).execute();
    try {
      const copies = await itemsOf(`taskTypes=${encodeURIComponent('["consensus"]')}`);
      expect(copies).toHaveLength(1);
      expect(copies[0]?.task).toMatchObject({
        taskId: copyId,
        taskType: 'consensus',
        parentTask: parentId,
        consensusAverage: 75,
      });
      const both = await itemsOf(`taskTypes=${encodeURIComponent('["default","consensus"]')}&format=json`);
      expect(both.map((i) => i.task.taskId)).toEqual(expect.arrayContaining([copyId, parentId]));
      expect(both).toHaveLength(5);
      const parent = both.find((i) => i.task.taskId === parentId);
      expect(parent?.task).not.toHaveProperty('taskType');
      expect(parent?.task.consensusAverage).toBe(75);
      // No benchmark tasks exist: asking for them alone exports an empty list.
      expect(await itemsOf(`taskTypes=${encodeURIComponent('["benchmark"]')}`)).toEqual([]);
      expect(await itemsOf('taskTypes=consensus')).toHaveLength(1);
    } finally {
      await t.store.db.updateTable('tasks').set({ consensus_score: null }).where('id', '=', parentId).execute();
    }
  });

  it("exports the project's issues", async () => {
    clock.set('2025-03-02T09:00:00.000Z');
    const created = await t.call('POST', '/v2/issues', {
      body: { content: 'Wrong box', labelTask: ids.tasks[1], position: '[3, 4]' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const items = await itemsOf('type=issue');
    expect(items).toEqual([
      expect.objectContaining({
        _id: created.json().data.issue._id,
        content: 'Wrong box',
        labelTask: ids.tasks[1],
        asset: ids.assets[1],
        externalId: 'bee',
        stage: 'rev',
        stageName: 'QA',
        position: '[3, 4]',
        status: 'Open',
        createdAt: '2025-03-02T09:00:00.000Z',
      }),
    ]);
    expect((await exportOf('type=issue&format=ndjson')).entries[0]?.name).toBe('issues.ndjson');
  });

  it('refuses expired and tampered links with 403, and a link of a removed file with 404', async () => {
    clock.set('2025-03-03T00:00:00.000Z');
    const { link } = await exportOf('');
    const head = await fetch(onServer(link, base), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
    const [expires, signature, file] = new URL(link).pathname.split('/').slice(-3) as [string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const prefix = `http://annotary.test/v2/exports`;
    for (const bad of [
      `${prefix}/${expires}/${flip(signature)}/${file}`,
      `${prefix}/${Number(expires) + 3600}/${signature}/${file}`,
      `${prefix}/${expires}/${signature}/${'0'.repeat(24)}.zip`,
      `${prefix}/${expires}/${signature}/..%2F..%2Fannotary.db`,
    ]) {
      const res = await download(bad, base);
      expect(res.status, bad).toBe(403);
      expect(JSON.parse(res.body.toString()).status).toBe('fail');
    }
    clock.advance(24 * 3600 * 1000 + 1000);
    const expired = await download(link, base);
    expect(expired.status).toBe(403);
    expect(JSON.parse(expired.body.toString()).message).toMatch(/expired/);
  });

  it('answers 400 naming the field for bad parameters', async () => {
    const cases: [string, string][] = [
      ['format=xml', 'format'],
      ['type=asset', 'type'],
      [`stage=${encodeURIComponent('["Complete"')}`, 'stage'],
      [`stage=${encodeURIComponent('[1]')}`, 'stage'],
      [`stage=${encodeURIComponent('["Nowhere"]')}`, 'stage[0]'],
      [`batches=${encodeURIComponent('["first","nope"]')}`, 'batches[1]'],
      ['status=Open', 'status'],
      ['createdAt=yesterday', 'createdAt'],
      [`updatedAt=${encodeURIComponent('{"$gt":"not a date"}')}`, 'updatedAt.$gt'],
      [`createdAt=${encodeURIComponent('{"$after":"2025-01-01"}')}`, 'createdAt.$after'],
      ['includeHistory=yes', 'includeHistory'],
      [`taskTypes=${encodeURIComponent('["default","gold"]')}`, 'taskTypes[1]'],
      [`taskTypes=${encodeURIComponent('["default"')}`, 'taskTypes'],
    ];
    for (const [query, field] of cases) {
      const res = await t.call('GET', `/v2/export?project=${projectId}&${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().status).toBe('fail');
      expect(
        res.json().errors.map((e: { field: string }) => e.field),
        query,
      ).toContain(field);
    }
    const missing = await t.call('GET', '/v2/export');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('project');
  });

  it('needs the Manager role: 403 for a Lead, 404 for an outsider and for no project', async () => {
    expect((await t.call('GET', `/v2/export?project=${projectId}`, { key: users.key.Lead })).statusCode).toBe(403);
    expect((await t.call('GET', `/v2/export?project=${projectId}`, { key: users.key.outsider })).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/export?project=${'0'.repeat(24)}`)).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/export?project=${projectId}`, { key: null })).statusCode).toBe(401);
  });
});
