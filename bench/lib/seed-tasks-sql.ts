import { assetSizeFacts } from '../../src/store/repositories/metrics-assets.repository.js';
import type { AnnotaryServer } from './annotary.js';
import type { SeedTarget } from './seed-tasks.js';

/*
 * The labelled tasks of seed-tasks.ts made by PostgreSQL itself: each table filled by one
 * INSERT ... SELECT over generate_series per 100,000 tasks, so no row crosses the wire and the
 * statement triggers run once per 100,000 rows. Same shape and values as seed-tasks.ts (three
 * objects per task, nine in ten Complete with a Label and a Review entry, every value from the
 * task's index); ids are made from the index (creation second, a tag of the table and the project, the index),
 * and an object's id is the index in hex instead of base 36. A million tasks take a minute or two.
 */

const BASE_SECONDS = Date.parse('2025-01-01T00:00:00.000Z') / 1000;
const PER_STATEMENT = 100_000;
const WIDTHS = [1920, 1280, 640, 4032, 256];
const HEIGHTS = [1080, 720, 480, 3024, 256];
const WEATHER = 5;

/** ISO text of the task's creation time plus `plusMs`. */
const iso = (plusMs: number) =>
  `to_char(timestamp '2025-01-01' + (i + ${plusMs}) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** A 24-hex id: creation second, a 10-hex tag of the table and project, the index. */
const idOf = (tag: string) => `lpad(to_hex(${BASE_SECONDS} + i / 1000), 8, '0') || '${tag}' || lpad(to_hex(i), 6, '0')`;
const ext = `CASE WHEN i % 7 = 0 THEN 'png' ELSE 'jpg' END`;
const pick = (values: (number | string | null)[]) =>
  `(ARRAY[${values.map((v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v}'`)).join(', ')}])[i % ${values.length} + 1]`;
const str = (s: string) => s.replace(/'/g, "''");

function answer(owner: string, objects: number): string {
  const by = str(JSON.stringify(owner));
  const tools = Array.from({ length: objects }, (_, k) => {
    const car = k % 3 !== 2;
    const cls = car ? `[{"schemaId":"car-occluded","answer":"car-occ-' || ((i + ${k}) % 3) || '"}]` : '[]';
    return (
      `'{"objectId":"' || to_hex(i) || '-${k}","schemaId":"${car ? 'car' : 'pedestrian'}","title":"${car ? 'Car' : 'Pedestrian'}",` +
      `"bounding-box":{"x":' || ((i * 13 + ${k * 50}) % 1800) || ',"y":' || ((i * 7 + ${k * 30}) % 1000) || ',` +
      `"width":${40 + k * 10},"height":${30 + k * 5}},"classifications":${cls},` +
      `"metadata":{"createdAt":"' || ${iso(3_600_000)} || '","createdBy":${by},"createdIn":"Label"}}'`
    );
  });
  return (
    `'{"tools":[' || ${tools.join(" || ',' || ")} || '],"classifications":[` +
    `{"schemaId":"weather","answer":"weather-' || (i % ${WEATHER}) || '"},` +
    `{"schemaId":"scene","answer":["scene-1","scene-' || (i % 4 + 2) || '"]},` +
    `{"schemaId":"notes","answer":"frame ' || (i % 997) || '"}],"relations":[]}'`
  );
}

/** The five statements of tasks `from` to `to` (exclusive). */
function statements(s: SeedTarget, from: number, to: number): string[] {
  const series = `FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS i`;
  const pid = `'${str(s.projectId)}'`;
  // The project id's last 8 hex (its counter): ids of two seeded projects differ.
  const tag = s.projectId.slice(-8);
  const owner = `'${str(s.ownerEmail)}'`;
  const url = `'https://cdn.example.com/bench/frame-' || i || '.' || ${ext}`;
  const facts = WIDTHS.map((w, r) => assetSizeFacts(`x.jpg`, { width: w, height: HEIGHTS[r] }));
  const png = assetSizeFacts('https://cdn.example.com/bench/frame-0.png', {}).file_type;
  const jpg = assetSizeFacts('https://cdn.example.com/bench/frame-1.jpg', {}).file_type;
  const complete = 'i % 10 <> 0';
  const label = '1000 + (i * 7919) % 60000';
  const review = `CASE WHEN ${complete} THEN 200 + (i * 104729) % 10000 ELSE 0 END`;
  const history = (stage: string, at: string, duration: string, status: string, trigger: string, id: string) => `
    INSERT INTO task_history (id, task_id, project_id, asset_id, stage_id, stage_name, stage_type, answer, duration,
      completed_at, completed_by, review_status, is_skipped, consensus_id, "trigger")
    SELECT ${idOf(id)}, ${idOf(`b2${tag}`)}, ${pid}, ${idOf(`a1${tag}`)}, '${stage}', '${stage}', '${stage}',
      ${answer(s.ownerEmail, s.objectsPerTask ?? 3)}, ${duration}, ${at}, ${owner}, ${status}, 0, NULL, '${trigger}'
    ${series}${stage === 'Review' ? ` WHERE ${complete}` : ''}`;
  return [
    `INSERT INTO assets (id, project_id, external_id, data, context_data, metadata, storage_id, attachments, deleted,
       created_by, created_at, width_bucket, height_bucket, file_type)
     SELECT ${idOf(`a1${tag}`)}, ${pid}, 'frame-' || i || '.' || ${ext}, ${url}, NULL,
       '{"width":' || ${pick(WIDTHS)} || ',"height":' || ${pick(HEIGHTS)} || '}', NULL, '[]', 0, ${owner}, ${iso(0)},
       ${pick(facts.map((f) => f.width_bucket))}, ${pick(facts.map((f) => f.height_bucket))},
       CASE WHEN i % 7 = 0 THEN '${png}' ELSE '${jpg}' END
     ${series}`,
    `INSERT INTO asset_batches (asset_id, batch_id) SELECT ${idOf(`a1${tag}`)}, ${pick(s.batchIds)} ${series}`,
    `INSERT INTO tasks (id, project_id, asset_id, external_id, stage_id, status, assignee, priority, answer,
       review_status, duration, total_duration, open_issues_count, is_pre_labeled, type, parent_task_id, consensus_id,
       consensus_score, brush_data_url, medical_brush_data_url, is_draft, stage_entered_at, deleted, created_at,
       updated_at, updated_by, completed_at, completed_by)
     SELECT ${idOf(`b2${tag}`)}, ${pid}, ${idOf(`a1${tag}`)}, 'frame-' || i || '.' || ${ext},
       CASE WHEN ${complete} THEN 'Complete' ELSE 'Review' END, CASE WHEN ${complete} THEN 'Completed' ELSE 'TODO' END,
       NULL, 0, ${answer(s.ownerEmail, s.objectsPerTask ?? 3)}, CASE WHEN ${complete} THEN 'Accepted' END, 0,
       ${label} + ${review}, 0, 0, 'default', NULL, NULL,
       CASE WHEN i % 5 = 0 THEN (i % 101) / 100.0 END, NULL, NULL, 0,
       CASE WHEN ${complete} THEN ${iso(7_200_000)} ELSE ${iso(3_600_000)} END, 0, ${iso(0)},
       CASE WHEN ${complete} THEN ${iso(7_200_000)} ELSE ${iso(3_600_000)} END, ${owner},
       CASE WHEN ${complete} THEN ${iso(7_200_000)} END, CASE WHEN ${complete} THEN ${owner} END
     ${series}`,
    history('Label', iso(3_600_000), label, 'NULL', 'submit', `c3${tag}`),
    history('Review', iso(7_200_000), review, "'Accepted'", 'review', `d4${tag}`),
  ];
}

/** Inserts `count` tasks into the server's PostgreSQL schema; answers the seconds it took. */
export async function seedTasksSql(server: AnnotaryServer, target: SeedTarget, count: number): Promise<number> {
  const schema = server.schema;
  if (!schema) throw new Error('seedTasksSql needs a PostgreSQL benchmark server');
  const started = Date.now();
  for (let from = 0; from < count; from += PER_STATEMENT) {
    const to = Math.min(count, from + PER_STATEMENT);
    // One simple query of several statements: PostgreSQL runs it as one transaction.
    await schema.query(statements(target, from, to).join(';\n'));
  }
  await schema.query(`UPDATE projects SET asset_count = asset_count + ${count} WHERE id = '${str(target.projectId)}'`);
  await schema.query('VACUUM ANALYZE');
  return (Date.now() - started) / 1000;
}
