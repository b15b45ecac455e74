/**
 * The audit log's costs, on a real Annotary server process:
 *
 * - on a write: a project update (POST /v2/project/{id}) and a saved answer (POST
 *   /v2/annotate/{taskId}) as a client sees them, and the audit record's own share of each,
 *   measured in the same run on the server's store: the write's statement in a transaction
 *   alone, with the audit record as the server writes it (sent with the COMMIT on PostgreSQL),
 *   and with the record as a statement of its own (as before), in turn, in `--rounds` rounds;
 * - on a read: GET /v2/organization/{orgId}/audit, filtered four ways, over `--records`
 *   (default 10,000,000) records seeded by one SQL bulk insert, a tenth of them the
 *   organization's, against the unfiltered first page as the baseline.
 */
import { sql } from 'kysely';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { ms, num } from './lib/format.js';
import { summarize, timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';
import { auditRow } from '../src/services/audit/audit.service.js';
import { type Executor, openStore, type Store } from '../src/store/db.js';
import { insertAuditRecord } from '../src/store/repositories/audit.repository.js';
import { updateProject } from '../src/store/repositories/project.repository.js';
import type { AuditLogTable } from '../src/store/schema.js';

const WRITES = 300;
const READS = 20;
/** Records one SQLite seeding statement writes. */
const SEED_PART = 200_000;

async function p50(times: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push((await timed(fn)).ms);
  return summarize(samples).p50;
}

function openServerStore(server: AnnotaryServer): Promise<Store> {
  return openStore(
    server.schema
      ? { databaseUrl: server.schema.databaseUrl, poolSize: 1 }
      : { sqliteFile: `${server.dataDir}/annotary.db` },
  );
}

/** `count` records, ids time-ordered from one day back, ten organizations, 50 people, 20 operations. */
async function seed(store: Store, orgId: string, count: number): Promise<void> {
  const base = Math.floor(Date.now() / 1000) - 86_400;
  const perSecond = Math.max(1, Math.ceil(count / 86_000));
  if (store.engine === 'postgres') {
    await sql`INSERT INTO audit_log
      SELECT lpad(to_hex(${base} + i / ${perSecond}), 8, '0') || lpad(to_hex(i), 16, '0'),
        CASE WHEN i % 10 = 0 THEN ${orgId} ELSE 'org' || (i % 10) END,
        to_char(to_timestamp(${base} + i / ${perSecond}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'user' || (i % 50), 'key' || (i % 50), '10.0.0.' || (i % 250), 'op.' || (i % 20), 'project',
        'target' || (i % 100000), NULL, '["name"]'
      FROM generate_series(0, ${count - 1}) AS i`.execute(store.db);
    await sql`ANALYZE audit_log`.execute(store.db);
    return;
  }
  // Parts of SEED_PART rows, each its own transaction: one statement over all of them would hold
  // the database's write lock for minutes, and the server's job worker waits on it meanwhile.
  for (let from = 0; from < count; from += SEED_PART) {
    const to = Math.min(count, from + SEED_PART) - 1;
    await sql`INSERT INTO audit_log
      WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})
      SELECT printf('%08x%016x', ${base} + i / ${perSecond}, i),
        CASE WHEN i % 10 = 0 THEN ${orgId} ELSE 'org' || (i % 10) END,
        strftime('%Y-%m-%dT%H:%M:%fZ', ${base} + i / ${perSecond}, 'unixepoch'),
        'user' || (i % 50), 'key' || (i % 50), '10.0.0.' || (i % 250), 'op.' || (i % 20), 'project',
        'target' || (i % 100000), NULL, '["name"]'
      FROM n`.execute(store.db);
  }
  await sql`ANALYZE`.execute(store.db);
}

interface WriteCost {
  http: number;
  bare: number;
  /** With its record sent with the COMMIT (what the server does). */
  audited: number;
  /** With its record sent as a statement of its own (what the server did before). */
  alone: number;
  /** The record's share of the HTTP write, per round: held to the COMMIT, and on its own. */
  shares: number[];
  aloneShares: number[];
}

/**
 * `rounds` rounds of: the write over HTTP (p50 of WRITES), then its statement in a transaction on
 * the store alone, with its audit record (sent with the COMMIT on PostgreSQL) and with the record
 * as a statement of its own, in turn (p50 of WRITES each). The share of a round is
 * (audited - bare) / http; the median round is the figure.
 */
async function writeCost(
  store: Store,
  rounds: number,
  viaHttp: () => Promise<unknown>,
  statement: (trx: Executor) => Promise<unknown>,
  row: () => AuditLogTable,
): Promise<WriteCost> {
  const https: number[] = [];
  const bares: number[] = [];
  const auditeds: number[] = [];
  const alones: number[] = [];
  const shares: number[] = [];
  const aloneShares: number[] = [];
  const run = (fn: (trx: Executor) => Promise<unknown>) =>
    timed(() => store.db.transaction().execute(fn)).then((t) => t.ms);
  for (let r = 0; r < rounds; r++) {
    const http = await p50(WRITES, viaHttp);
    const bare: number[] = [];
    const audited: number[] = [];
    const alone: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      bare.push(await run(statement));
      audited.push(
        await run(async (trx) => {
          await statement(trx);
          await insertAuditRecord(trx, row());
        }),
      );
      alone.push(
        await run(async (trx) => {
          await statement(trx);
          await trx.insertInto('audit_log').values(row()).execute();
        }),
      );
    }
    const b = summarize(bare).p50;
    const a = summarize(audited).p50;
    const s = summarize(alone).p50;
    https.push(http);
    bares.push(b);
    auditeds.push(a);
    alones.push(s);
    shares.push((Math.max(0, a - b) / http) * 100);
    aloneShares.push((Math.max(0, s - b) / http) * 100);
  }
  const median = (xs: number[]) => summarize(xs).p50;
  return {
    http: median(https),
    bare: median(bares),
    audited: median(auditeds),
    alone: median(alones),
    shares,
    aloneShares,
  };
}

export default defineBenchmark({
  name: 'audit',
  description: 'the audit record on a project update and an annotate, and filtered GET /audit over 10,000,000 records',
  async run(opts: BenchOptions): Promise<Result> {
    const records = Number(opts.extra.records ?? 10_000_000);
    const rounds = Math.max(1, Number(opts.extra.rounds ?? 3));
    const server = await startAnnotary({ engine: opts.engine });
    const store = await openServerStore(server);
    try {
      const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Audited' });
      const projectId = created.data.project._id;
      const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
        'POST',
        `/project/${projectId}/cloud`,
        { assets: [{ data: 'https://cdn.example.com/audited.jpg' }] },
      );
      const taskId = imported.data.assets[0]!.taskId;
      const actor = { orgId: server.orgId, userId: 'bench', keyId: 'bench', address: '127.0.0.1' };
      const clock = { now: () => Date.now() };
      let n = 0;

      const update = await writeCost(
        store,
        rounds,
        () => server.api('POST', `/project/${projectId}`, { description: `d${n++}` }),
        (trx) => updateProject(trx, projectId, { description: `s${n++}`, updated_at: new Date().toISOString() }),
        () =>
          auditRow(clock, actor, {
            operation: 'project.update',
            targetType: 'project',
            targetId: projectId,
            projectId,
            fields: ['description'],
          }),
      );
      // A saved answer: one classification-free answer with a changing duration, as the editor saves.
      const answer = { tools: [], classifications: [], relations: [] };
      const annotate = await writeCost(
        store,
        rounds,
        () => server.api('POST', `/annotate/${taskId}`, { answer, duration: 1 }),
        (trx) =>
          trx
            .updateTable('tasks')
            .set({ answer: JSON.stringify(answer), is_draft: 1, updated_at: new Date().toISOString() })
            .set((eb) => ({ duration: eb('duration', '+', 1), total_duration: eb('total_duration', '+', 1) }))
            .where('id', '=', taskId)
            .execute(),
        () =>
          auditRow(clock, actor, {
            operation: 'task.annotate',
            targetType: 'task',
            targetId: taskId,
            projectId,
            fields: ['answer', 'duration'],
          }),
      );
      const share = (c: WriteCost) => summarize(c.shares).p50;
      const rounded = (xs: number[]) => xs.map((x) => num(x, 1)).join(' / ');
      const rows: (string | number)[][] = [];
      for (const [name, c] of [
        ['POST /v2/project/{id}', update],
        ['POST /v2/annotate/{taskId}', annotate],
      ] as const) {
        rows.push(
          [`${name} (HTTP, p50)`, ms(c.http)],
          ['  its statement in a transaction (p50)', ms(c.bare)],
          ['  same with its audit record (p50)', ms(c.audited)],
          [`  audit record share, rounds (%)`, rounded(c.shares)],
          ['  audit record share (median round)', `${num(share(c), 1)} %`],
          ['  same with the record on its own (p50)', ms(c.alone)],
          ['  its share on its own, rounds (%)', rounded(c.aloneShares)],
          ['  its share on its own (median round)', `${num(summarize(c.aloneShares).p50, 1)} %`],
        );
      }
      const writes = { update, annotate };
      const summaryWrites = `audit adds ${num(share(update), 1)} % to a project update (${ms(update.http)}), ${num(share(annotate), 1)} % to an annotate (${ms(annotate.http)})`;
      if (records <= 0) {
        return {
          table: { columns: ['measure', 'value'], rows },
          summary: summaryWrites,
          data: { writes, rounds },
          notes: ['--records 0: the reads were not measured.'],
        };
      }

      const seedMs = (await timed(() => seed(store, server.orgId, records))).ms;
      // The client's kept-alive connection may have been closed by the server while seeding ran.
      await server.api('GET', `/organization/${server.orgId}/audit?limit=1`).catch(() => undefined);
      const base = `/organization/${server.orgId}/audit`;
      const hourAgo = new Date(Date.now() - 3_600_000 * 12).toISOString();
      const twoHoursAgo = new Date(Date.now() - 3_600_000 * 13).toISOString();
      const reads: [string, string][] = [
        ['first page, no filter (baseline)', `${base}?limit=100`],
        ['operation', `${base}?operation=op.7&limit=100`],
        ['person', `${base}?userId=user10&limit=100`],
        ['target', `${base}?targetId=target40&limit=100`],
        ['time range + operation', `${base}?from=${twoHoursAgo}&to=${hourAgo}&operation=op.0&limit=100`],
        ['person + operation, none match', `${base}?userId=user10&operation=op.3&limit=100`],
      ];
      rows.push([`seeding ${num(records)} records (one INSERT ... SELECT)`, ms(seedMs)]);
      const readFigures: Record<string, number> = {};
      for (const [name, url] of reads) {
        await server.api('GET', url).catch((err: unknown) => {
          throw new Error(`${String(err)}; the server's last output:\n${server.process.output()}`);
        });
        const t = await p50(READS, () => server.api('GET', url));
        readFigures[name] = t;
        rows.push([`GET /audit: ${name} (p50)`, ms(t)]);
      }
      const worst = Math.max(...Object.values(readFigures));
      return {
        table: { columns: ['measure', 'value'], rows },
        summary: `${summaryWrites}; filtered GET /audit over ${num(records)} records at most ${ms(worst)}`,
        data: { writes, rounds, records, seedMs, reads: readFigures },
        notes: [
          'Store figures run on a connection of their own beside the idle server; HTTP figures are sequential requests.',
        ],
      };
    } finally {
      await store.close();
      await server.stop();
    }
  },
});
