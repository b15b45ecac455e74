import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const FIVE_STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Hook', 'Label'] },
  {
    id: 'Hook',
    type: 'Webhook',
    name: 'Notify',
    next: ['Complete'],
    webhook: { url: 'https://hooks.example.com/annotary', authType: 'secret', secret: 's3cret' },
  },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000', pilotNote: 'kept as sent' },
    { schemaId: 'road', title: 'Road', tool: 'polygon', color: '#00FF00' },
  ],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      required: true,
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        { schemaId: 'rain', value: 'Rainy' },
      ],
    },
  ],
  relations: [{ schemaId: 'follows', title: 'Follows', tool: 'one-to-one' }],
};

describe.each(ENGINES)('projects on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(() => t.close());

  async function createProject(name: string, key = t.ownerKey) {
    const res = await t.call('POST', '/v2/project', { key, body: { name, description: `${name} description` } });
    expect(res.statusCode).toBe(201);
    return res.json().data.project as Record<string, unknown> & { _id: string };
  }

  it('creates a project with the default workflow, an empty ontology and the creator as Manager', async () => {
    const p = await createProject('Cars');
    expect(p._id).toMatch(/^[0-9a-f]{24}$/);
    expect(p).toMatchObject({
      name: 'Cars',
      type: 'standard',
      organization: t.orgId,
      categorySchema: { tools: [], classifications: [], relations: [] },
      assignedTo: [{ assignee: 'admin@annotary.local', role: 'Manager' }],
      role: 'Manager',
      deleted: false,
      assetCount: 0,
    });
    expect((p.stages as { id: string }[]).map((s) => s.id)).toEqual(['Start', 'Label', 'Complete']);
    expect(p.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes ango as an alias of standard and refuses pctConfig on other types', async () => {
    const alias = await t.call('POST', '/v2/project', { body: { name: 'Alias', type: 'ango' } });
    expect(alias.json().data.project.type).toBe('standard');
    const bad = await t.call('POST', '/v2/project', { body: { name: 'Bad', pctConfig: {} } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('pctConfig');
    const pct = await t.call('POST', '/v2/project', {
      body: { name: 'Lidar', type: 'pct', pctConfig: { externalValidation: { enabled: true, frameNumbers: '12' } } },
    });
    expect(pct.statusCode).toBe(201);
    expect(pct.json().data.project.pctConfig.externalValidation.frameNumbers).toBe(12);
  });

  it('sets the ontology alone, the workflow alone, and both with settings together', async () => {
    const p = await createProject('Update me');
    const onto = await t.call('POST', `/v2/project/${p._id}`, { body: { categorySchema: ONTOLOGY } });
    expect(onto.statusCode).toBe(200);
    expect(onto.json().data.project.categorySchema.tools[0]).toMatchObject({
      schemaId: 'car',
      pilotNote: 'kept as sent',
    });

    const flow = await t.call('POST', `/v2/project/${p._id}`, { body: { stages: FIVE_STAGES } });
    expect(flow.statusCode).toBe(200);
    const stages = flow.json().data.project.stages as {
      id: string;
      webhook?: { method: string; retryCount: number };
    }[];
    expect(stages.map((s) => s.id)).toEqual(['Start', 'Label', 'Review', 'Hook', 'Complete']);
    expect(stages[3]?.webhook).toMatchObject({ method: 'POST', retryCount: 3, timeout: 30000 });

    const all = await t.call('POST', `/v2/project/${p._id}`, {
      body: {
        name: 'Renamed',
        description: 'new',
        taskSkipEnabled: true,
        idleTimeout: 300,
        tags: ['a', 'b'],
        errorCodesEnabled: true,
        errorSchema: { codes: [{ code: 'E1' }] },
        batches: [{ name: 'first' }, { name: 'second' }],
        projectId: 'ignored extra',
      },
    });
    expect(all.statusCode).toBe(200);
    const updated = all.json().data.project;
    expect(updated).toMatchObject({
      name: 'Renamed',
      description: 'new',
      taskSkipEnabled: true,
      idleTimeout: 300,
      tags: ['a', 'b'],
    });
    expect(updated.batches.map((b: { name: string }) => b.name)).toEqual(['first', 'second']);
    expect(updated.categorySchema.tools).toHaveLength(2);

    const read = await t.call('GET', `/v2/project/${p._id}`);
    expect(read.json().data.project).toMatchObject({ name: 'Renamed', errorSchema: { codes: [{ code: 'E1' }] } });
  });

  it('reads its members and batches in order, as the update answers them', async () => {
    const p = await createProject('Ordered');
    const fresh = (await t.call('GET', `/v2/project/${p._id}`)).json().data.project;
    expect(fresh).toMatchObject({ batches: [], assignedTo: [{ assignee: 'admin@annotary.local', role: 'Manager' }] });

    const emails = ['zoe', 'adam', 'mia'].map((n) => `${n}-ordered-${engine}@example.com`);
    for (const e of emails) await t.addUser(e);
    const assign = await t.call('POST', `/v2/project/${p._id}/assigned`, {
      body: { assignees: emails, role: 'Reviewer' },
    });
    expect(assign.statusCode).toBe(200);
    await t.call('POST', `/v2/project/${p._id}`, { body: { batches: [{ name: 'b-one' }, { name: 'a-two' }] } });
    const updated = (await t.call('POST', `/v2/project/${p._id}`, { body: { batches: [{ name: 'c-three' }] } })).json()
      .data.project;

    const read = (await t.call('GET', `/v2/project/${p._id}`)).json().data.project;
    expect(read.batches.map((b: { name: string }) => b.name)).toEqual(['b-one', 'a-two', 'c-three']);
    expect(read.assignedTo).toEqual([
      { assignee: 'admin@annotary.local', role: 'Manager' },
      ...[...emails].sort().map((assignee) => ({ assignee, role: 'Reviewer' })),
    ]);
    expect(read.batches).toEqual(updated.batches);
    expect(read.assignedTo).toEqual(updated.assignedTo);
    expect(read.role).toBe('Manager');
  });

  it('names the bad colour and refuses an empty update', async () => {
    const p = await createProject('Colours');
    const res = await t.call('POST', `/v2/project/${p._id}`, {
      body: { categorySchema: { tools: [{ schemaId: 'a', title: 'A', tool: 'bounding-box', color: 'red' }] } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'categorySchema.tools[0].color', message: expect.any(String) }]);
    const empty = await t.call('POST', `/v2/project/${p._id}`, { body: { unrelated: 1 } });
    expect(empty.statusCode).toBe(400);
  });

  it('refuses duplicate schemaIds and a broken workflow, writing nothing', async () => {
    const p = await createProject('Strict');
    const dup = await t.call('POST', `/v2/project/${p._id}`, {
      body: {
        name: 'should not stick',
        categorySchema: {
          tools: [{ schemaId: 'x', title: 'X', tool: 'point' }],
          classifications: [{ schemaId: 'x', title: 'Y', tool: 'text' }],
        },
      },
    });
    expect(dup.statusCode).toBe(400);
    expect(dup.json().errors[0].field).toBe('categorySchema.classifications[0].schemaId');
    const flow = await t.call('POST', `/v2/project/${p._id}`, {
      body: { stages: [{ id: 'Start', type: 'Start', next: ['Nowhere'] }] },
    });
    expect(flow.statusCode).toBe(400);
    expect(flow.json().errors[0].field).toBe('stages[0].next[0]');
    const read = await t.call('GET', `/v2/project/${p._id}`);
    expect(read.json().data.project.name).toBe('Strict');
  });

  it('lists projects with total, page, limit and sort', async () => {
    const res = await t.call('GET', '/v2/listProjects?page=1&limit=2&sort=name');
    expect(res.statusCode).toBe(200);
    const { projects, total } = res.json().data;
    expect(projects).toHaveLength(2);
    expect(total).toBeGreaterThanOrEqual(4);
    expect(Object.keys(projects[0]).sort()).toEqual(['_id', 'createdAt', 'description', 'name', 'organization']);
    expect(projects[0].name <= projects[1].name).toBe(true);
    const newestFirst = (await t.call('GET', '/v2/listProjects?limit=100')).json().data.projects as {
      createdAt: string;
    }[];
    expect(newestFirst.map((p) => p.createdAt)).toEqual([...newestFirst.map((p) => p.createdAt)].sort().reverse());
    for (const q of ['page=0', 'limit=1001', 'limit=0', 'sort=owner', 'page=abc']) {
      const bad = await t.call('GET', `/v2/listProjects?${q}`);
      expect(bad.statusCode, q).toBe(400);
    }
  });

  it('searches projects by a part of their name, case-insensitively, wildcards taken literally', async () => {
    for (const name of ['Street Scenes 2026', 'street signs', 'Cats 100%', 'Cats_extra']) {
      expect((await t.call('POST', '/v2/project', { body: { name } })).statusCode).toBe(201);
    }
    const names = async (q: string) =>
      (await t.call('GET', `/v2/listProjects?limit=100&sort=name&name=${encodeURIComponent(q)}`)).json().data as {
        projects: { name: string }[];
        total: number;
      };
    const street = await names('STREET');
    expect(street.projects.map((p) => p.name)).toEqual(['Street Scenes 2026', 'street signs']);
    expect(street.total).toBe(2);
    expect((await names('0%')).projects.map((p) => p.name)).toEqual(['Cats 100%']);
    expect((await names('s_e')).projects.map((p) => p.name)).toEqual(['Cats_extra']);
    expect((await names('no such project')).total).toBe(0);
    const tooLong = await t.call('GET', `/v2/listProjects?name=${'x'.repeat(201)}`);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().errors[0].field).toContain('name');
  });

  it('deletes softly: the project is gone from reads and lists', async () => {
    const p = await createProject('Doomed');
    const del = await t.call('DELETE', `/v2/project/${p._id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ status: 'success', data: { project: { _id: p._id, deleted: true } } });
    expect((await t.call('GET', `/v2/project/${p._id}`)).statusCode).toBe(404);
    const list = (await t.call('GET', '/v2/listProjects?limit=100')).json().data.projects as { _id: string }[];
    expect(list.some((x) => x._id === p._id)).toBe(false);
  });

  it('enforces project roles: 404 for outsiders, 403 for a visible project without the right', async () => {
    const p = await createProject('Roles');
    const labelerKey = await t.addUser(`labeler-${engine}@example.com`);
    const outsiderKey = await t.addUser(`outsider-${engine}@example.com`);
    const adminKey = await t.addUser(`admin-${engine}@example.com`, 'admin');
    const assign = await t.call('POST', `/v2/project/${p._id}/assigned`, {
      body: { assignees: [`labeler-${engine}@example.com`], role: 'Labeler' },
    });
    expect(assign.statusCode).toBe(200);

    const asLabeler = await t.call('GET', `/v2/project/${p._id}`, { key: labelerKey });
    expect(asLabeler.json().data.project.role).toBe('Labeler');
    expect((await t.call('POST', `/v2/project/${p._id}`, { key: labelerKey, body: { name: 'x' } })).statusCode).toBe(
      403,
    );
    expect((await t.call('DELETE', `/v2/project/${p._id}`, { key: labelerKey })).statusCode).toBe(403);
    expect((await t.call('GET', `/v2/project/${p._id}`, { key: outsiderKey })).statusCode).toBe(404);
    const outsiderList = (await t.call('GET', '/v2/listProjects', { key: outsiderKey })).json().data;
    expect(outsiderList.total).toBe(0);
    const labelerList = (await t.call('GET', '/v2/listProjects', { key: labelerKey })).json().data;
    expect(labelerList.projects.map((x: { _id: string }) => x._id)).toEqual([p._id]);
    const asAdmin = await t.call('GET', `/v2/project/${p._id}`, { key: adminKey });
    expect(asAdmin.json().data.project.role).toBe('Manager');
  });

  it('never shows webhook credentials, to Managers either: hasSecret instead', async () => {
    const p = await createProject('Secrets');
    await t.call('POST', `/v2/project/${p._id}`, { body: { stages: FIVE_STAGES } });
    const reviewer = `reviewer-${engine}@example.com`;
    const key = await t.addUser(reviewer);
    await t.call('POST', `/v2/project/${p._id}/assigned`, { body: { assignees: [reviewer], role: 'Reviewer' } });
    const hook = (stages: { id: string; webhook?: Record<string, unknown> }[]) =>
      stages.find((s) => s.id === 'Hook')?.webhook;
    const asManager = (await t.call('GET', `/v2/project/${p._id}`)).json().data.project;
    expect(hook(asManager.stages)).toMatchObject({ hasSecret: true });
    expect(hook(asManager.stages)).not.toHaveProperty('secret');
    expect(JSON.stringify(asManager)).not.toContain('s3cret');
    const asReviewer = (await t.call('GET', `/v2/project/${p._id}`, { key })).json().data.project;
    expect(hook(asReviewer.stages)).toMatchObject({ url: 'https://hooks.example.com/annotary' });
    expect(hook(asReviewer.stages)).not.toHaveProperty('secret');
    expect(hook(asReviewer.stages)).not.toHaveProperty('sealedSecret');
  });

  it('answers 404 for an id that is not an id', async () => {
    expect((await t.call('GET', '/v2/project/not-an-id')).statusCode).toBe(404);
  });
});
