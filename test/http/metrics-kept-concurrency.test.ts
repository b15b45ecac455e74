import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { car, ONTOLOGY, weather } from '../helpers/metrics-fixture.js';
import { expectKeptFiguresExact } from '../helpers/metrics-reference.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * PostgreSQL runs writers side by side, and every annotate of a project moves the same counter
 * rows of answer_counts (weather=sun, car...). Migration 008 folds each transaction's changes into
 * them only at commit, in key order: writers queue there, never deadlock, and no count is lost.
 */

const STAGES = [
  { id: 'Start', type: 'Start', next: ['lbl'] },
  { id: 'lbl', type: 'Label', next: ['done'] },
  { id: 'done', type: 'Complete', next: [] },
];
const answerOf = (i: number) => ({
  tools: Array.from({ length: 1 + (i % 3) }, (_, k) => car(k)),
  classifications: [weather(i % 2 ? 'sun' : 'rain'), { schemaId: 'colors', answer: ['red', i % 4 ? 'blue' : 'green'] }],
});

describe.runIf(ENGINES.includes('postgres'))('kept metric figures under concurrent writers on postgres', () => {
  let t: TestApp;
  let projectId: string;
  let tasks: string[];

  beforeAll(async () => {
    t = await makeTestApp('postgres', { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Parallel' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${projectId}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
    const assets = Array.from({ length: 40 }, (_, i) => ({ data: `https://cdn.example.com/p/${i}.jpg` }));
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    tasks = res.json().data.assets.map((a: { taskId: string }) => a.taskId);
  });
  afterAll(() => t.close());

  it('parallel annotates of one project all succeed and leave exact counts', async () => {
    const results = await Promise.all(
      tasks.map((id, i) =>
        t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer: answerOf(i), duration: 10 } }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(tasks.map(() => 200));
    // A second round changes every answer again, all at once.
    const again = await Promise.all(
      tasks.map((id, i) => t.call('POST', `/v2/annotate/${id}`, { body: { answer: answerOf(i + 1) } })),
    );
    expect(again.map((r) => r.statusCode)).toEqual(tasks.map(() => 200));
    const kept = await expectKeptFiguresExact(t.store.db, 'postgres', projectId);
    // 40 tasks: 80 tools (1 + i % 3 each), 40 weather answers, 80 colors answers.
    expect(kept.facts).toBe(80 + 40 + 80);
  });

  it('a transaction waiting on a task row while it holds changed answers does not deadlock', async () => {
    const client = async () => {
      const c = new pg.Client({
        connectionString: t.store.databaseUrl,
        options: `-c search_path=${t.store.pgSchema}`,
      });
      await c.connect();
      return c;
    };
    const [a, b] = [await client(), await client()];
    const set = (c: pg.Client, i: number, answer: unknown) =>
      c.query('UPDATE tasks SET answer = $1 WHERE id = $2', [JSON.stringify(answer), tasks[i]]);
    const sunny = { tools: [car(1)], classifications: [weather('sun')], relations: [] };
    const empty = { tools: [], classifications: [], relations: [] };
    try {
      for (const i of [0, 1, 2]) await set(a, i, empty);
      await a.query('BEGIN');
      await set(a, 0, sunny);
      await b.query('BEGIN');
      await set(b, 1, { tools: [], classifications: [weather('rain')], relations: [] });
      // b changes the values a changed; then a needs the task row b holds. Counters updated in
      // place at each statement would close the cycle a -> b -> a here.
      const bSecond = set(b, 2, sunny);
      const aSecond = set(a, 1, sunny);
      await Promise.all([bSecond.then(() => b.query('COMMIT')), aSecond.then(() => a.query('COMMIT'))]);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
    await expectKeptFiguresExact(t.store.db, 'postgres', projectId);
  });
});
