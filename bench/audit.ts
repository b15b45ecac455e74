/**
 * The audit log's costs, on a real Annotary server process:
 *
 * - on a write: a project update (POST /v2/project/{id}) as a client sees it, and the audit
 *   record's own share of it, measured in the same run on the server's store: the update's
 *   statement in a transaction alone, and with the audit record appended, alternately;
 * - on a read: GET /v2/organization/{orgId}/audit, filtered four ways, over `--records`
 *   (default 10,000,000) records seeded by one SQL bulk insert, a tenth of them the
 *   organization's, against the unfiltered first page as the baseline.
 */
import { sql } from 'kysely';
import { type AnnotaryServer, startAnnotary } from './lib/annotary.js';
import { ms, num } from './lib/format.js';
import { summarize, timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';
import { audit } from '../src/services/audit/audit.service.js';
import { openStore, type Store } from '../src/store/db.js';
import { updateProject } from '../src/store/repositories/project.repository.js';

const WRITES = 400;
const READS = 20;

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
  await sql`INSERT INTO audit_log
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})
    SELECT printf('%08x%016x', ${base} + i / ${perSecond}, i),
      CASE WHEN i % 10 = 0 THEN ${orgId} ELSE 'org' || (i % 10) END,
      strftime('%Y-%m-%dT%H:%M:%fZ', ${base} + i / ${perSecond}, 'unixepoch'),
      'user' || (i % 50), 'key' || (i % 50), '10.0.0.' || (i % 250), 'op.' || (i % 20), 'project',
      'target' || (i % 100000), NULL, '["name"]'
    FROM n`.execute(store.db);
  await sql`ANALYZE`.execute(store.db);
}

export default defineBenchmark({
  name: 'audit',
  description: 'the audit record on a project update, and filtered GET /audit over 10,000,000 records',
  async run(opts: BenchOptions): Promise<Result> {
    const records = Number(opts.extra.records ?? 10_000_000);
    const server = await startAnnotary({ engine: opts.engine });
    const store = await openServerStore(server);
    try {
      const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'Audited' });
      const projectId = created.data.project._id;
      let n = 0;
      const httpUpdate = await p50(WRITES, () =>
        server.api('POST', `/project/${projectId}`, { description: `d${n++}` }),
      );
      const actor = { orgId: server.orgId, userId: 'bench', keyId: 'bench', address: '127.0.0.1' };
      const clock = { now: () => Date.now() };
      const patch = () => ({ description: `s${n++}`, updated_at: new Date().toISOString() });
      const bare: number[] = [];
      const withAudit: number[] = [];
      for (let i = 0; i < WRITES; i++) {
        bare.push(
          (await timed(() => store.db.transaction().execute((trx) => updateProject(trx, projectId, patch())))).ms,
        );
        withAudit.push(
          (
            await timed(() =>
              store.db.transaction().execute(async (trx) => {
                await updateProject(trx, projectId, patch());
                await audit(trx, clock, actor, {
                  operation: 'project.update',
                  targetType: 'project',
                  targetId: projectId,
                });
              }),
            )
          ).ms,
        );
      }
      const storeBare = summarize(bare).p50;
      const storeAudit = summarize(withAudit).p50;
      const added = Math.max(0, storeAudit - storeBare);

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
      const rows: (string | number)[][] = [
        ['POST /v2/project/{id} (HTTP, p50)', ms(httpUpdate)],
        ['update transaction on the store (p50)', ms(storeBare)],
        ['same with its audit record (p50)', ms(storeAudit)],
        ['audit record share of the HTTP update', `${num((added / httpUpdate) * 100, 1)} %`],
        [`seeding ${num(records)} records (one INSERT ... SELECT)`, ms(seedMs)],
      ];
      const readFigures: Record<string, number> = {};
      for (const [name, url] of reads) {
        await server.api('GET', url);
        const t = await p50(READS, () => server.api('GET', url));
        readFigures[name] = t;
        rows.push([`GET /audit: ${name} (p50)`, ms(t)]);
      }
      const worst = Math.max(...Object.values(readFigures));
      return {
        table: { columns: ['measure', 'value'], rows },
        summary: `audit adds ${ms(added)} to a ${ms(httpUpdate)} project update (${num((added / httpUpdate) * 100, 1)} %); filtered GET /audit over ${num(records)} records at most ${ms(worst)}`,
        data: { httpUpdate, storeBare, storeAudit, records, seedMs, reads: readFigures },
        notes: [
          'Annotate writes no audit record (bulk moves by people do, one a request), so its cost is unchanged.',
          'Store figures run on a connection of their own beside the idle server; HTTP figures are sequential requests.',
        ],
      };
    } finally {
      await store.close();
      await server.stop();
    }
  },
});
