import { newId } from '../../src/ids.js';
import { insertInChunks } from '../../src/store/chunks.js';
import { assetSizeFacts } from '../../src/store/repositories/metrics-assets.repository.js';
import { openStore } from '../../src/store/db.js';
import type { Insertable } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import type { AnnotaryServer } from './annotary.js';

/*
 * Fills a project of a running benchmark server with labelled tasks, straight through the store
 * (bulk inserts, not HTTP): a million tasks go in within a minute or two. The shape follows the
 * street-scene ontology and five-stage workflow of fixtures.ts: nine tasks in ten are Complete
 * with a Label and a Review history entry, one in ten waits in Review with its Label entry.
 * Every value derives from the task's index, so two runs build the same data.
 */

export interface SeedTarget {
  projectId: string;
  batchIds: string[];
  ownerEmail: string;
  /** Objects in each task's answer (3 unless said). */
  objectsPerTask?: number;
}

const RESOLUTIONS = [
  [1920, 1080],
  [1280, 720],
  [640, 480],
  [4032, 3024],
  [256, 256],
];
const WEATHER = ['weather-0', 'weather-1', 'weather-2', 'weather-3', 'weather-4'];
const BASE_TIME = Date.parse('2025-01-01T00:00:00.000Z');
/** Tasks generated and inserted per round: bounds the seeding process's own memory. */
const ROUND = 5000;

function box(schemaId: string, title: string, i: number, k: number, at: string, by: string) {
  return {
    objectId: `${i.toString(36)}-${k}`,
    schemaId,
    title,
    'bounding-box': { x: (i * 13 + k * 50) % 1800, y: (i * 7 + k * 30) % 1000, width: 40 + k * 10, height: 30 + k * 5 },
    classifications: schemaId === 'car' ? [{ schemaId: 'car-occluded', answer: `car-occ-${(i + k) % 3}` }] : [],
    metadata: { createdAt: at, createdBy: by, createdIn: 'Label' },
  };
}

/** Two cars and a pedestrian in every third place: three objects by default. */
function answerOf(i: number, at: string, by: string, objects: number): string {
  return JSON.stringify({
    tools: Array.from({ length: objects }, (_, k) =>
      k % 3 === 2 ? box('pedestrian', 'Pedestrian', i, k, at, by) : box('car', 'Car', i, k, at, by),
    ),
    classifications: [
      { schemaId: 'weather', answer: WEATHER[i % WEATHER.length] },
      { schemaId: 'scene', answer: ['scene-1', `scene-${(i % 4) + 2}`] },
      { schemaId: 'notes', answer: `frame ${i % 997}` },
    ],
    relations: [],
  });
}

type Rows = { [T in 'assets' | 'asset_batches' | 'tasks' | 'task_history']: Insertable<Database[T]>[] };

function round(from: number, to: number, s: SeedTarget): Rows {
  const rows: Rows = { assets: [], asset_batches: [], tasks: [], task_history: [] };
  for (let i = from; i < to; i++) {
    const created = BASE_TIME + i;
    const createdAt = new Date(created).toISOString();
    const labelledAt = new Date(created + 3_600_000).toISOString();
    const reviewedAt = new Date(created + 7_200_000).toISOString();
    const complete = i % 10 !== 0;
    const [width, height] = RESOLUTIONS[i % RESOLUTIONS.length] as number[];
    const assetId = newId(created);
    const taskId = newId(created);
    const answer = answerOf(i, labelledAt, s.ownerEmail, s.objectsPerTask ?? 3);
    const label = 1000 + ((i * 7919) % 60_000);
    const review = complete ? 200 + ((i * 104_729) % 10_000) : 0;
    rows.assets.push({
      id: assetId,
      project_id: s.projectId,
      external_id: `frame-${i}.${i % 7 === 0 ? 'png' : 'jpg'}`,
      data: `https://cdn.example.com/bench/frame-${i}.${i % 7 === 0 ? 'png' : 'jpg'}`,
      context_data: null,
      metadata: JSON.stringify({ width, height }),
      storage_id: null,
      attachments: '[]',
      deleted: 0,
      created_by: s.ownerEmail,
      created_at: createdAt,
      ...assetSizeFacts(`https://cdn.example.com/bench/frame-${i}.${i % 7 === 0 ? 'png' : 'jpg'}`, { width, height }),
    });
    rows.asset_batches.push({ asset_id: assetId, batch_id: s.batchIds[i % s.batchIds.length] as string });
    rows.tasks.push({
      id: taskId,
      project_id: s.projectId,
      asset_id: assetId,
      external_id: `frame-${i}.${i % 7 === 0 ? 'png' : 'jpg'}`,
      stage_id: complete ? 'Complete' : 'Review',
      status: complete ? 'Completed' : 'TODO',
      assignee: null,
      priority: 0,
      answer,
      review_status: complete ? 'Accepted' : null,
      duration: 0,
      total_duration: label + review,
      open_issues_count: 0,
      is_pre_labeled: 0,
      type: 'default',
      parent_task_id: null,
      consensus_id: null,
      consensus_score: i % 5 === 0 ? (i % 101) / 100 : null,
      brush_data_url: null,
      medical_brush_data_url: null,
      is_draft: 0,
      stage_entered_at: complete ? reviewedAt : labelledAt,
      deleted: 0,
      created_at: createdAt,
      updated_at: complete ? reviewedAt : labelledAt,
      updated_by: s.ownerEmail,
      completed_at: complete ? reviewedAt : null,
      completed_by: complete ? s.ownerEmail : null,
    });
    const entry = (stage: string, at: string, duration: number, reviewStatus: string | null) => ({
      id: newId(created),
      task_id: taskId,
      project_id: s.projectId,
      asset_id: assetId,
      stage_id: stage,
      stage_name: stage,
      stage_type: stage,
      answer,
      duration,
      completed_at: at,
      completed_by: s.ownerEmail,
      review_status: reviewStatus,
      is_skipped: 0,
      consensus_id: null,
      trigger: stage === 'Label' ? 'submit' : 'review',
    });
    rows.task_history.push(entry('Label', labelledAt, label, null));
    if (complete) rows.task_history.push(entry('Review', reviewedAt, review, 'Accepted'));
  }
  return rows;
}

/** Inserts `count` tasks into the server's store; answers the seconds it took. */
export async function seedTasks(server: AnnotaryServer, target: SeedTarget, count: number): Promise<number> {
  const started = Date.now();
  const store = await openStore(
    server.schema
      ? { databaseUrl: server.schema.databaseUrl, poolSize: 2 }
      : { sqliteFile: `${server.dataDir}/annotary.db` },
  );
  try {
    // SQLite: one transaction per 100,000 tasks keeps the WAL small; PostgreSQL: per round.
    const perTransaction = store.engine === 'sqlite' ? 100_000 : ROUND;
    for (let from = 0; from < count; from += perTransaction) {
      const to = Math.min(count, from + perTransaction);
      await store.db.transaction().execute(async (trx) => {
        for (let r = from; r < to; r += ROUND) {
          const rows = round(r, Math.min(to, r + ROUND), target);
          await insertInChunks(trx, 'assets', rows.assets);
          await insertInChunks(trx, 'asset_batches', rows.asset_batches);
          await insertInChunks(trx, 'tasks', rows.tasks);
          await insertInChunks(trx, 'task_history', rows.task_history);
        }
      });
    }
    await store.db
      .updateTable('projects')
      .set((eb) => ({ asset_count: eb('asset_count', '+', count) }))
      .where('id', '=', target.projectId)
      .execute();
  } finally {
    await store.close();
  }
  // Statistics and visibility map as autovacuum leaves them soon after a bulk load: plans and
  // index-only scans then match a production database rather than a just-loaded one.
  if (server.schema) await server.schema.query('VACUUM ANALYZE');
  return (Date.now() - started) / 1000;
}
