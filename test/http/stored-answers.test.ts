import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';

/*
 * Answers are written into responses as the text we stored (src/stored-json.ts), not parsed and
 * serialised again. Every route that answers one must give the same JSON as the stored document,
 * whatever the free-form objects hold: quotes, braces, unicode, numbers, and keys that look like
 * the splice's own marker.
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Review', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

const ANSWER = {
  tools: [
    {
      schemaId: 'car',
      'bounding-box': { x: 0.1, y: 1e21, width: -0, height: 40 },
      note: 'he said "stop" } ] {"__annotary_stored_json_0":0} \\ \n\t end',
      label: 'ünïcödé ✓ 𝄞 \u2028',
      '{"__annotary_stored_json_': { nested: [1, [2, [3, null]], { deep: true }] },
      empty: {},
      list: [],
    },
    { schemaId: 'car', 'bounding-box': { x: 5, y: 6, width: 7, height: 8 }, objectId: 'kept-id' },
  ],
  classifications: [{ schemaId: 'weather', answer: 'sun', extra: { a: null, b: false } }],
  relations: [],
};

describe.each(ENGINES)('stored answers in responses on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskIds: string[];

  async function storedAnswer(taskId: string): Promise<{ text: string; value: unknown }> {
    const row = await t.store.db
      .selectFrom('tasks')
      .select('answer')
      .where('id', '=', taskId)
      .executeTakeFirstOrThrow();
    return { text: row.answer, value: JSON.parse(row.answer) };
  }

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Stored answers' } })).json().data.project._id;
    const upd = await t.call('POST', `/v2/project/${projectId}`, {
      body: { stages: STAGES, categorySchema: streetOntology() },
    });
    expect(upd.statusCode).toBe(200);
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }, { data: 'https://cdn.example.com/b.jpg' }] },
    });
    expect(res.statusCode).toBe(201);
    taskIds = res.json().data.assets.map((a: { taskId: string }) => a.taskId);
  });
  afterAll(() => t.close());

  it('annotate, GET task, lists and history answer the stored document', async () => {
    const id = taskIds[0] as string;
    const saved = await t.call('POST', `/v2/annotate/${id}`, { body: { answer: ANSWER } });
    expect(saved.statusCode).toBe(200);
    const stored = await storedAnswer(id);
    expect(saved.json().data.task.answer).toEqual(stored.value);
    // The free-form objects came through as sent (an objectId was added to the first).
    const tools = (stored.value as { tools: Record<string, unknown>[] }).tools;
    expect(tools[0]).toEqual({
      ...ANSWER.tools[0],
      'bounding-box': { x: 0.1, y: 1e21, width: 0, height: 40 },
      objectId: expect.any(String),
    });
    expect(tools[1]?.objectId).toBe('kept-id');

    const got = await t.call('GET', `/v2/task/${id}`);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
    const task = got.json().data.task;
    expect(task.answer).toEqual(stored.value);
    expect(task).toMatchObject({ _id: id, project: projectId, stage: 'Label', isDraft: true });
    // Written as stored, byte for byte.
    expect(got.body).toContain(`"answer":${stored.text}`);

    const list = await t.call('GET', `/v2/project/${projectId}/tasks?includeAnswer=true&sort=createdAt`);
    expect(list.statusCode).toBe(200);
    const listed = list.json().data.tasks as { _id: string; answer: unknown }[];
    expect(listed.map((x) => x._id).sort()).toEqual([...taskIds].sort());
    for (const item of listed) expect(item.answer).toEqual((await storedAnswer(item._id)).value);
    const onlyAnswers = await t.call('GET', `/v2/project/${projectId}/tasks?fields=answer`);
    for (const item of onlyAnswers.json().data.tasks as { _id: string; answer: unknown }[]) {
      expect(Object.keys(item).sort()).toEqual(['_id', 'answer']);
      expect(item.answer).toEqual((await storedAnswer(item._id)).value);
    }
    const withoutAnswers = await t.call('GET', `/v2/project/${projectId}/tasks`);
    for (const item of withoutAnswers.json().data.tasks as Record<string, unknown>[])
      expect(item).not.toHaveProperty('answer');

    const submitted = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer: ANSWER } });
    expect(submitted.statusCode).toBe(200);
    const afterSubmit = await storedAnswer(id);
    expect(submitted.json().data.task.answer).toEqual(afterSubmit.value);
    const history = await t.call('GET', `/v2/task/${id}/history`);
    expect(history.statusCode).toBe(200);
    const entries = history.json().data.taskHistory as { _id: string; answer: unknown }[];
    expect(entries).toHaveLength(1);
    expect(entries[0]?.answer).toEqual(afterSubmit.value);
    const one = await t.call('GET', `/v2/taskHistory/${entries[0]?._id}`);
    expect(one.json().data.taskHistory.answer).toEqual(afterSubmit.value);
  });

  it('an empty stored answer reads as before', async () => {
    const id = taskIds[1] as string;
    const got = await t.call('GET', `/v2/task/${id}`);
    expect(got.json().data.task.answer).toEqual({ tools: [], classifications: [], relations: [] });
  });
});
