import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

const ONTOLOGY = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' }] };
const box = (x: number) => ({ schemaId: 'car', objectId: `o${x}`, 'bounding-box': { x, y: 0, width: 10, height: 10 } });

describe.each(ENGINES)('benchmark marking on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let tasks: [string, string, string, string, string];
  let users: RoleUsers;

  const mark = (body: Record<string, unknown>, key?: string) =>
    t.call('POST', `/v2/project/${projectId}/benchmarks`, { body, ...(key ? { key } : {}) });
  const reference = (taskId: string, key?: string) =>
    t.call('GET', `/v2/project/${projectId}/benchmarks/${taskId}`, key ? { key } : {});
  const benchmarkIds = async () => {
    const q = encodeURIComponent(JSON.stringify({ isBenchmark: true }));
    const res = await t.call('GET', `/v2/project/${projectId}/tasks?limit=100&filter=${q}`);
    expect(res.statusCode).toBe(200);
    return (res.json().data.tasks as { _id: string }[]).map((x) => x._id).sort();
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Benchmarks' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: ONTOLOGY } });
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ data: `https://cdn.example.com/${n}.jpg` })) },
    });
    tasks = imported.json().data.assets.map((a: { taskId: string }) => a.taskId) as typeof tasks;
    await t.call('POST', `/v2/annotate/${tasks[0]}`, { body: { answer: { tools: [box(1)] } } });
    users = await addRoleUsers(t, projectId, `bm-${engine}`);
    await t.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [tasks[0]], stage: 'Label', user: users.email.Labeler },
    });
  });
  afterAll(() => t.close());

  it('marks one task with its current answer and one with a given answer, and keeps each reference', async () => {
    const one = await mark({ tasks: [tasks[0]] });
    expect(one.statusCode).toBe(200);
    expect(one.json().data.benchmarks).toEqual([{ taskId: tasks[0], isBenchmark: true, source: 'answer' }]);
    const given = await mark({ tasks: [tasks[1]], answer: { tools: [box(50)] } });
    expect(given.json().data.benchmarks[0].source).toBe('given');
    expect((await reference(tasks[0])).json().data.benchmark.reference.tools[0]['bounding-box'].x).toBe(1);
    expect((await reference(tasks[1])).json().data.benchmark.reference.tools[0]['bounding-box'].x).toBe(50);
    expect(await benchmarkIds()).toEqual([tasks[0], tasks[1]].sort());
  });

  it('marks and unmarks in bulk; unmarking forgets the reference', async () => {
    const bulk = await mark({ tasks: [tasks[2], tasks[3], tasks[4]] });
    expect(bulk.statusCode).toBe(200);
    expect(await benchmarkIds()).toEqual([...tasks].sort());
    const un = await t.call('DELETE', `/v2/project/${projectId}/benchmarks`, { body: { tasks: [tasks[3], tasks[4]] } });
    expect(un.statusCode).toBe(200);
    expect(await benchmarkIds()).toEqual([tasks[0], tasks[1], tasks[2]].sort());
    expect((await reference(tasks[3])).statusCode).toBe(404);
    const plain = await t.call('GET', `/v2/task/${tasks[3]}`);
    expect(plain.json().data.task.type).toBe('default');
  });

  it('names the field of every bad input and writes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tasks: [tasks[4], 'nope'] }, 'tasks[1]'],
      [{ tasks: [tasks[4]], source: 'prelabels' }, 'tasks[0]'],
      [{ tasks: [tasks[4]], source: 'given' }, 'answer'],
      [{ tasks: [tasks[4]], source: 'answer', answer: { tools: [] } }, 'source'],
      [{ tasks: [] }, 'tasks'],
    ];
    for (const [body, field] of cases) {
      const res = await mark(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(field);
    }
    expect(await benchmarkIds()).toEqual([tasks[0], tasks[1], tasks[2]].sort());
  });

  it('marks a task with the pre-labels imported for it as its reference', async () => {
    // Labels are imported onto tasks still in Start: a project that holds its tasks there.
    const created = await t.call('POST', '/v2/project', { body: { name: 'Pre-labelled benchmarks' } });
    const pid = created.json().data.project._id as string;
    const stages = [
      { id: 'Start', type: 'Start', next: ['Label'], autoForward: false },
      { id: 'Label', type: 'Label', next: ['Done'] },
      { id: 'Done', type: 'Complete' },
    ];
    const setUp = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, stages } });
    expect(setUp.statusCode, setUp.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/pre.jpg', externalId: 'pre.jpg' }] },
    });
    const taskId = imported.json().data.assets[0].taskId as string;
    const labels = await t.call('POST', '/v2/import/labels', {
      body: { project: pid, jsonContent: [{ externalId: 'pre.jpg', objects: [box(70)] }] },
    });
    expect(labels.statusCode, labels.body).toBe(200);
    expect(labels.json().data.imported).toBe(1);
    const marked = await t.call('POST', `/v2/project/${pid}/benchmarks`, {
      body: { tasks: [taskId], source: 'prelabels' },
    });
    expect(marked.statusCode, marked.body).toBe(200);
    expect(marked.json().data.benchmarks).toEqual([{ taskId, isBenchmark: true, source: 'prelabels' }]);
    const ref = (await t.call('GET', `/v2/project/${pid}/benchmarks/${taskId}`)).json().data.benchmark;
    expect(ref.source).toBe('prelabels');
    expect(ref.reference.tools.map((o: { 'bounding-box': { x: number } }) => o['bounding-box'].x)).toEqual([70]);
  });

  it('lets only Managers mark, unmark or read references; a Labeler never sees one', async () => {
    for (const role of ['Lead', 'Reviewer', 'Labeler'] as const) {
      const key = users.key[role];
      expect((await mark({ tasks: [tasks[4]] }, key)).statusCode).toBe(403);
      expect((await reference(tasks[0], key)).statusCode).toBe(403);
      const un = await t.call('DELETE', `/v2/project/${projectId}/benchmarks`, { body: { tasks: [tasks[0]] }, key });
      expect(un.statusCode).toBe(403);
    }
    // tasks[0] was the Labeler's, its answer now the reference: marking took it from them, so
    // they neither read it (answer and all) nor submit it, and it stays as it was.
    const seen = await t.call('GET', `/v2/task/${tasks[0]}`, { key: users.key.Labeler });
    expect(seen.statusCode).toBe(403);
    expect(seen.body).not.toContain('bounding-box');
    const history = await t.call('GET', `/v2/task/${tasks[0]}/history`, { key: users.key.Labeler });
    expect(history.statusCode).toBe(403);
    const submitted = await t.call('POST', `/v2/annotate/${tasks[0]}?nextStage=true`, {
      body: { answer: { tools: [box(7)] } },
      key: users.key.Labeler,
    });
    expect(submitted.statusCode).toBe(403);
    const listed = await t.call('GET', `/v2/project/${projectId}/tasks?limit=100`, { key: users.key.Labeler });
    expect(listed.body).not.toContain(tasks[0]);
    const stored = (await t.call('GET', `/v2/task/${tasks[0]}`)).json().data.task;
    expect(stored).toMatchObject({ stage: 'Label', type: 'benchmark', assignee: null });
    expect(stored.answer.tools.map((o: { objectId: string }) => o.objectId)).toEqual(['o1']);
    expect(await benchmarkIds()).toEqual([tasks[0], tasks[1], tasks[2]].sort());
  });
});
