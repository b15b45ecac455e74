import { expect } from 'vitest';
import type { Engine } from '../../src/store/db.js';
import { makeTestApp, type TestApp } from './app.js';
import { addRoleUsers, type RoleUsers } from './roles.js';
import { streetOntology } from './street-scene.js';

export const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['lbl'] },
  { id: 'lbl', type: 'Label', name: 'Labeling', next: ['rev'] },
  { id: 'rev', type: 'Review', name: 'QA', next: ['done', 'arch'] },
  { id: 'done', type: 'Complete', name: 'Finished', next: [] },
  { id: 'arch', type: 'Archive', name: 'Archived', next: [] },
];
export const ONTOLOGY = streetOntology({ person: true, colors: true });
export const car = (x: number) => ({ schemaId: 'car', 'bounding-box': { x, y: 1, width: 10, height: 10 } });
export const weather = (answer: string) => ({ schemaId: 'weather', answer });

/*
 * Eleven assets, worked by hand so every figure of test/http/metrics.test.ts is computed on paper:
 *   a  a.jpg        640x480    Label 1000 ms, Review 200 ms, accepted  -> Finished   2 cars, sun
 *   b  b.JPG?sig=1  1920x1080  Label 3000 ms, Review 400 ms, rejected  -> Archived   1 car, rain
 *   c  c.png        4096x100   Label 2000 ms                           -> QA         sun, [red, blue]
 *   d  files/d      width "wide" (not a number)                        -> Labeling   1 person, sun (saved)
 *   e  e.jpeg#x     no metadata                                        -> Labeling
 *   f  f.tar.gz     no metadata                                        -> Labeling
 *   g..j  URLs without a usable extension (no path, trailing dot, dot in a folder, too long)
 *   k  k.WebP       300.5 x true (not a number)                        -> Labeling
 * plus a consensus copy of e in Labeling with 1 car and a score: counted per stage, nowhere else.
 */
export async function metricsFixture(engine: Engine): Promise<{ t: TestApp; projectId: string; users: RoleUsers }> {
  const t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
  const projectId = (await t.call('POST', '/v2/project', { body: { name: 'Metrics' } })).json().data.project._id;
  const upd = await t.call('POST', `/v2/project/${projectId}`, {
    body: { stages: STAGES, categorySchema: ONTOLOGY },
  });
  expect(upd.statusCode, upd.body).toBe(200);
  const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
    body: {
      assets: [
        { data: 'https://cdn.example.com/img/a.jpg', metadata: { width: 640, height: 480 } },
        { data: 'https://cdn.example.com/img/b.JPG?sig=1', metadata: { width: 1920, height: 1080 } },
        { data: 'https://cdn.example.com/img/c.png', metadata: { width: 4096, height: 100 } },
        { data: 'https://cdn.example.com/files/d', metadata: { width: 'wide' } },
        { data: 'https://cdn.example.com/e.jpeg#x' },
        { data: 'https://cdn.example.com/f.tar.gz' },
        { data: 'https://cdn.example.com', externalId: 'g' },
        { data: 'https://cdn.example.com/x.', externalId: 'h' },
        { data: 'https://cdn.example.com/v1.2/file', externalId: 'i' },
        { data: 'https://cdn.example.com/a.verylongextension', externalId: 'j' },
        { data: 'https://cdn.example.com/k.WebP', externalId: 'k', metadata: { width: 300.5, height: true } },
      ],
    },
  });
  expect(imported.statusCode, imported.body).toBe(201);
  const tasks: string[] = imported.json().data.assets.map((x: { taskId: string }) => x.taskId);
  const [a, b, c, d] = tasks;
  const call = async (url: string, body: unknown) => {
    const res = await t.call('POST', url, { body });
    expect(res.statusCode, res.body).toBe(200);
  };
  await call(`/v2/annotate/${a}?nextStage=true`, {
    answer: { tools: [car(1), car(2)], classifications: [weather('sun')] },
    duration: 1000,
  });
  await call(`/v2/annotate/${a}`, {
    answer: { tools: [car(1), car(2)], classifications: [weather('sun')] },
    duration: 200,
  });
  await call(`/v2/review/${a}`, { reviewStatus: 'Accepted' });
  await call(`/v2/annotate/${b}?nextStage=true`, {
    answer: { tools: [car(3)], classifications: [weather('rain')] },
    duration: 3000,
  });
  await call(`/v2/annotate/${b}`, { answer: { tools: [car(3)], classifications: [weather('rain')] }, duration: 400 });
  await call(`/v2/review/${b}`, { reviewStatus: 'Rejected' });
  await call(`/v2/annotate/${c}?nextStage=true`, {
    answer: { classifications: [weather('sun'), { schemaId: 'colors', answer: ['red', 'blue'] }] },
    duration: 2000,
  });
  await call(`/v2/annotate/${d}`, {
    answer: { tools: [{ schemaId: 'person', point: [5, 5] }], classifications: [weather('sun')] },
  });
  // Consensus scores (the Consensus stage's own work) and a copy, written to the store directly.
  const scores: [string, number][] = [
    [tasks[0] as string, 0.7],
    [tasks[1] as string, 0.05],
    [tasks[2] as string, 1],
    [tasks[3] as string, 0.333],
    [tasks[4] as string, 0.1],
  ];
  for (const [id, score] of scores) {
    await t.store.db.updateTable('tasks').set({ consensus_score: score }).where('id', '=', id).execute();
  }
  const e = await t.store.db
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', tasks[4] as string)
    .executeTakeFirstOrThrow();
  await t.store.db
    .insertInto('tasks')
    .values({
      ...e,
      id: 'f'.repeat(24),
      type: 'consensus',
      parent_task_id: e.id,
      consensus_score: 0.5,
      answer: JSON.stringify({ tools: [car(9)], classifications: [weather('rain')], relations: [] }),
    })
    .execute();
  const users = await addRoleUsers(t, projectId, engine);
  return { t, projectId, users };
}
