/**
 * The SQL of the worker loop: claim, renew, finish. A claim is one UPDATE statement per kind of
 * pick (expired leases, then due jobs), each atomic on both engines:
 * - PostgreSQL: the inner SELECT locks the rows it picks with FOR UPDATE SKIP LOCKED, so
 *   concurrent workers pick disjoint jobs without waiting on each other. A row another worker
 *   claimed and committed meanwhile is re-checked against the WHERE clause and dropped.
 * - SQLite: a writing statement takes the database write lock before it reads, so concurrent
 *   claimers (other connections, other processes, waiting under busy_timeout) run one after
 *   the other and each sees the previous one's claims.
 * Every later write on a claimed job matches on (id, lease_owner, attempts, status running):
 * a worker that lost its lease to a re-claim can no longer touch the job.
 */
import { type Expression, sql } from 'kysely';
import { chunked } from '../store/chunks.js';
import type { Db, Engine, Executor } from '../store/db.js';
import type { JobRow } from '../store/schema.js';

export interface ClaimRequest {
  workerId: string;
  /** Kinds this worker handles, with the lease each one gets. */
  leases: ReadonlyMap<string, number>;
  limit: number;
  now: number;
  /** Also take over jobs whose lease lapsed (default true); a busy worker looks now and then. */
  includeExpired?: boolean;
}

/** The claim that a finishing or renewing worker must still hold. */
export interface Claim {
  id: string;
  workerId: string;
  attempt: number;
}

/** What a worker needs of a claimed job. */
export type ClaimedJob = Pick<JobRow, 'id' | 'kind' | 'payload' | 'attempts' | 'max_attempts'>;

const iso = (ms: number) => new Date(ms).toISOString();

export async function claimJobs(db: Db, engine: Engine, req: ClaimRequest): Promise<ClaimedJob[]> {
  if (req.leases.size === 0 || req.limit < 1) return [];
  if (engine === 'sqlite') return claimBoth(db, engine, req);
  return db.transaction().execute((trx) => claimJobsIn(trx, engine, req));
}

/**
 * The same claim inside a transaction the caller holds (one that ends other jobs, so their
 * slots are refilled without a commit of their own). On PostgreSQL the plan steering lasts to
 * the end of that transaction: claim last.
 */
export async function claimJobsIn(trx: Executor, engine: Engine, req: ClaimRequest): Promise<ClaimedJob[]> {
  if (req.leases.size === 0 || req.limit < 1) return [];
  if (engine === 'postgres') await steerClaimPlan(trx);
  return claimBoth(trx, engine, req);
}

/**
 * Handed by the worker to a handler that ends its job in its own transaction (JOB_RECORDED):
 * `claim` takes, in that transaction, the jobs that will fill the slots of the `ended` jobs
 * (and any slot already free). The caller launches them once the transaction has committed,
 * or discards them if it rolled back (the claim rolled back with it).
 */
export interface Refill {
  claim(trx: Executor, ended: number): Promise<RefillClaim>;
}

export interface RefillClaim {
  launch(): void;
  discard(): void;
}

/**
 * PostgreSQL, inside the claim's transaction: each pick must walk its partial index in order
 * and stop at its limit. While the table's statistics are older than the queue (a fresh
 * install, or just after a large import: the queue outgrows them until autovacuum's next
 * look), the planner read and sorted the whole queue on every claim instead, 20 ms for 10,000
 * queued jobs. The picks need no sort: it is ruled out for this transaction only.
 */
export async function steerClaimPlan(trx: Executor): Promise<void> {
  await sql`SELECT set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`.execute(trx);
}

async function claimBoth(db: Executor, engine: Engine, req: ClaimRequest): Promise<ClaimedJob[]> {
  // Two picks, each walking its own partial index in order and stopping at its limit: jobs
  // whose worker died first, then due jobs. One pick with an OR of both made the database sort
  // every due job on each claim, so a claim cost grew with the backlog.
  const expired = req.includeExpired === false ? [] : await claimPicked(db, engine, req, 'running', req.limit);
  const left = req.limit - expired.length;
  return left > 0 ? [...expired, ...(await claimPicked(db, engine, req, 'queued', left))] : expired;
}

async function claimPicked(
  db: Executor,
  engine: Engine,
  req: ClaimRequest,
  from: 'queued' | 'running',
  limit: number,
): Promise<ClaimedJob[]> {
  return pickStatement(db, engine, req, from, limit).execute();
}

/** The UPDATE of one pick; exported so that a test can look at its plan. */
export function pickStatement(
  db: Executor,
  engine: Engine,
  req: ClaimRequest,
  from: 'queued' | 'running',
  limit: number,
) {
  const kinds = [...req.leases.keys()];
  const now = iso(req.now);
  const distinct = [...new Set(req.leases.values())];
  // The index a pick walks: jobs_queued by run_at, jobs_leased by lease_until (009-job-indexes).
  const order = from === 'queued' ? 'run_at' : 'lease_until';
  return db
    .updateTable('jobs')
    .set((eb) => {
      const until = (kind: string) => iso(req.now + (req.leases.get(kind) ?? 0));
      let leaseUntil: Expression<string> = eb.val(until(kinds[0] ?? ''));
      if (distinct.length > 1) {
        // Each kind gets its own lease in the same statement.
        const [first = '', ...rest] = kinds;
        let c = eb.case().when('kind', '=', first).then(until(first));
        for (const k of rest) c = c.when('kind', '=', k).then(until(k));
        leaseUntil = c.else(now).end();
      }
      return {
        status: 'running',
        attempts: eb('attempts', '+', 1),
        lease_owner: req.workerId,
        lease_until: leaseUntil,
        updated_at: now,
      };
    })
    .where('id', 'in', (eb) => {
      const picked = eb
        .selectFrom('jobs')
        .select('id')
        // A literal, so that both engines see at planning time which partial index applies.
        .where('status', '=', sql.lit(from))
        .where('kind', 'in', kinds)
        .where(order, from === 'queued' ? '<=' : '<', now)
        .orderBy(order)
        .limit(limit);
      return engine === 'postgres' ? picked.forUpdate().skipLocked() : picked;
    })
    .returning(['id', 'kind', 'payload', 'attempts', 'max_attempts']);
}

/** Claims grouped by owner and attempt: each group is one statement matching on `id IN (...)`. */
function byOwnerAndAttempt(claims: readonly Claim[]): Claim[][] {
  const groups = new Map<string, Claim[]>();
  for (const c of claims) {
    const key = `${c.attempt} ${c.workerId}`;
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  return [...groups.values()].flatMap((g) => chunked(g));
}

function ownClaims(db: Executor, group: readonly Claim[]) {
  const first = group[0] as Claim;
  return db
    .updateTable('jobs')
    .where(
      'id',
      'in',
      group.map((c) => c.id),
    )
    .where('lease_owner', '=', first.workerId)
    .where('attempts', '=', first.attempt)
    .where('status', '=', 'running');
}

/**
 * Extends the leases of many claims at once; answers the ids still ours. On PostgreSQL a job
 * row locked by a transaction in flight (its own handler ending it, mostly) is skipped rather
 * than waited for: a renewal waiting on such a row held every other row it had renewed, and
 * each handler ending one of those waited in turn. A claim skipped that way, or ended by its
 * own holder meanwhile, is still ours: only a job another worker took over, or put back in
 * the queue, is not.
 */
export async function renewLeases(
  db: Executor,
  engine: Engine,
  claims: readonly Claim[],
  now: number,
  leaseMs: number,
): Promise<Set<string>> {
  const held = new Set<string>();
  for (const group of byOwnerAndAttempt(claims)) {
    const ids = group.map((c) => c.id);
    let renew = ownClaims(db, group).set({ lease_until: iso(now + leaseMs), updated_at: iso(now) });
    if (engine === 'postgres') {
      renew = renew.where('id', 'in', (eb) =>
        eb.selectFrom('jobs').select('id').where('id', 'in', ids).forUpdate().skipLocked(),
      );
    }
    for (const r of await renew.returning('id').execute()) held.add(r.id);
    const missing = ids.filter((id) => !held.has(id));
    if (missing.length === 0) continue;
    const first = group[0] as Claim;
    const ours = await db
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', missing)
      .where('lease_owner', '=', first.workerId)
      .where('attempts', '=', first.attempt)
      .where('status', 'in', ['running', 'done', 'failed'])
      .execute();
    for (const r of ours) held.add(r.id);
  }
  return held;
}

export type Outcome =
  { status: 'done' } | { status: 'failed'; error: string } | { status: 'retry'; error: string; runAt: number };

/**
 * Ends claimed jobs as done, one statement per owner and attempt number (in practice one):
 * inside a handler's transaction, so the job ends with the writes that made it done, or by
 * the worker for many handlers at once. Answers the ids ended; the others' claims were lost
 * (another worker owns them now) and they were not touched.
 */
export async function completeJobs(db: Executor, claims: readonly Claim[], now: number): Promise<Set<string>> {
  const ended = new Set<string>();
  for (const group of byOwnerAndAttempt(claims)) {
    const rows = await ownClaims(db, group)
      .set({ status: 'done', lease_until: null, updated_at: iso(now) })
      .returning('id')
      .execute();
    for (const r of rows) ended.add(r.id);
  }
  return ended;
}

/** Records how the attempt ended; false when the claim was lost and nothing was written. */
export async function finishJob(db: Executor, claim: Claim, now: number, outcome: Outcome): Promise<boolean> {
  if (outcome.status === 'done') return (await completeJobs(db, [claim], now)).has(claim.id);
  const common = { updated_at: iso(now), lease_until: null, last_error: outcome.error };
  const values =
    outcome.status === 'failed'
      ? { ...common, status: 'failed' }
      : // Back in the queue: the lease owner goes, so nobody mistakes it for a live claim.
        { ...common, status: 'queued', lease_owner: null, run_at: iso(outcome.runAt) };
  const r = await ownClaims(db, [claim]).set(values).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
