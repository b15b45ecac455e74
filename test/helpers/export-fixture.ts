import { expect } from 'vitest';
import { makeTestApp, type TestApp } from './app.js';
import { listening, manualClock } from './exports.js';
import { addRoleUsers, type RoleUsers } from './roles.js';
import type { Engine } from '../../src/store/db.js';
import { streetOntology } from './street-scene.js';

/*
 * The project the export tests read, built through the API with a steered clock:
 *   a  a.jpg  batch first, metadata, contextData  labelled 1200 ms, reviewed 300 ms, accepted
 *   b  bee    batches first + second              labelled 50 ms, waits in review (QA)
 *   c  c.jpg  imported an hour later              waits in Labeling (plus a consensus copy)
 *   d  d.jpeg imported an hour later              waits in Labeling
 * Stage ids differ from their names, so filters by id and by name are told apart.
 */

export const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['lbl'] },
  { id: 'lbl', type: 'Label', name: 'Labeling', next: ['rev'] },
  { id: 'rev', type: 'Review', name: 'QA', next: ['done', 'lbl'] },
  { id: 'done', type: 'Complete', name: 'Finished', next: [] },
];
export const ONTOLOGY = streetOntology();
export const BOX = { schemaId: 'car', objectId: 'box-1', 'bounding-box': { x: 1, y: 2, width: 30, height: 40 } };
export const SUN = { schemaId: 'weather', answer: 'sun' };
export const T0 = '2025-03-01T10:00:00.000Z';
export const T1 = '2025-03-01T11:00:00.000Z';

export interface ExportFixture {
  t: TestApp;
  clock: ReturnType<typeof manualClock>;
  /** Base URL of the app listening on a real socket. */
  base: string;
  projectId: string;
  ids: { tasks: string[]; assets: string[]; batches: Record<string, string> };
  users: RoleUsers;
  ownerEmail: string;
}

export async function exportFixture(engine: Engine): Promise<ExportFixture> {
  const clock = manualClock(T0);
  const t = await makeTestApp(engine, { clock, env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
  const base = await listening(t.app);
  const ownerEmail = (await t.store.db.selectFrom('users').select('email').executeTakeFirstOrThrow()).email;
  const projectId = (await t.call('POST', '/v2/project', { body: { name: 'Exports' } })).json().data.project._id;
  await t.call('POST', `/v2/project/${projectId}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
  await t.call('POST', `/v2/batches/${projectId}`, { body: { batches: [{ name: 'first' }, { name: 'second' }] } });
  const batchList = (await t.call('GET', `/v2/batches/${projectId}`)).json().data.batches as {
    _id: string;
    name: string;
  }[];
  const importAt = async (iso: string, assets: unknown[]) => {
    clock.set(iso);
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets as { _id: string; taskId: string }[];
  };
  const early = await importAt(T0, [
    {
      data: 'https://cdn.example.com/img/a.jpg',
      batches: ['first'],
      metadata: { width: 640, height: 480 },
      contextData: { camera: 'front' },
    },
    { data: 'https://cdn.example.com/img/b.png', externalId: 'bee', batches: ['first', 'second'] },
  ]);
  const late = await importAt(T1, [
    { data: 'https://cdn.example.com/img/c.jpg' },
    { data: 'https://cdn.example.com/img/d.jpeg' },
  ]);
  const all = [...early, ...late];
  const ids = {
    tasks: all.map((a) => a.taskId),
    assets: all.map((a) => a._id),
    batches: Object.fromEntries(batchList.map((b) => [b.name, b._id])),
  };
  const [a, b] = ids.tasks;
  clock.set('2025-03-01T12:00:00.000Z');
  const ok = async (method: string, url: string, body: unknown) => {
    const res = await t.call(method, url, { body });
    expect(res.statusCode, res.body).toBe(200);
  };
  // a: labelled (1200 ms), reviewed (300 ms) and accepted; b: labelled, waiting in review.
  await ok('POST', `/v2/annotate/${a}?nextStage=true`, {
    answer: { tools: [BOX], classifications: [SUN] },
    duration: 1200,
  });
  await ok('POST', `/v2/annotate/${a}`, { answer: { tools: [BOX], classifications: [SUN] }, duration: 300 });
  await ok('POST', `/v2/review/${a}`, { reviewStatus: 'Accepted' });
  await ok('POST', `/v2/annotate/${b}?nextStage=true`, { answer: { tools: [], classifications: [] }, duration: 50 });
  // A consensus score on a, and a consensus copy of c: copies are never items of their own.
  await t.store.db
    .updateTable('tasks')
    .set({ consensus_score: 0.8125 })
    .where('id', '=', a as string)
    .execute();
  const c = await t.store.db
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', ids.tasks[2] as string)
    .executeTakeFirstOrThrow();
  await t.store.db
    .insertInto('tasks')
    .values({ ...c, id: 'f'.repeat(24), type: 'consensus', parent_task_id: c.id })
    .execute();
  const users = await addRoleUsers(t, projectId, engine);
  return { t, clock, base, projectId, ids, users, ownerEmail };
}
