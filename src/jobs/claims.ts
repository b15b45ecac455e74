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
import { engineOf, idList, inIdList, preparedQuery } from '../store/prepared-query.js';
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
  if (engine === 'sqlite') return claimBoth(db, req);
  return db.transaction().execute((trx) => claimJobsIn(trx, engine, req));
}

/**
 * The same claim inside a transaction the caller holds (one that ends other jobs, so their
 * slots are refilled without a commit of their own). On PostgreSQL the plan steering lasts to
 * the end of that transaction: claim last.
 */
export async function claimJobsIn(
  trx: Executor,
  engine: Engine,
  req: ClaimRequest,
  /** The transaction began steered (transactionForClaim): no statement of its own for it. */
  steered = false,
): Promise<ClaimedJob[]> {
  if (req.leases.size === 0 || req.limit < 1) return [];
  if (engine === 'postgres' && !steered) await steerClaimPlan(trx);
  return claimBoth(trx, req);
}

const STEER_SQL = "SELECT set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)";

/**
 * Runs `fn` in a transaction that may claim jobs last (a Refill). On PostgreSQL the claim's plan
 * steering goes out with BEGIN, in one round trip (a simple query of two statements, which
 * takes no parameters), instead of one of its own in the middle of the transaction: `fn` passes
 * `steered` on to the claim. The steering then covers every statement of the transaction; it
 * only rules out sorts and bitmap scans, so it must hold statements that read rows by key.
 */
export async function transactionForClaim<T>(
  db: Db,
  engine: Engine,
  fn: (trx: Executor, steered: boolean) => Promise<T>,
): Promise<T> {
  if (engine !== 'postgres') return db.transaction().execute((trx) => fn(trx, false));
  return db.connection().execute(async (conn) => {
    let out: T;
    try {
      // Inside the try: were the steering to fail after BEGIN, the connection must not go back to
      // the pool inside an aborted transaction.
      await sql.raw(`BEGIN; ${STEER_SQL}`).execute(conn);
      out = await fn(conn, true);
    } catch (err) {
      await sql
        .raw('ROLLBACK')
        .execute(conn)
        .catch(() => undefined);
      throw err;
    }
    await sql.raw('COMMIT').execute(conn);
    return out;
  });
}

/**
 * Handed by the worker to a handler that ends its job in its own transaction (JOB_RECORDED):
 * `claim` takes, in that transaction, the jobs that will fill the slots of the `ended` jobs
 * (and any slot already free). The caller launches them once the transaction has committed,
 * or discards them if it rolled back (the claim rolled back with it).
 */
export interface Refill {
  /** `steered`: the transaction began with the claim's plan steering (transactionForClaim). */
  claim(trx: Executor, ended: number, steered?: boolean): Promise<RefillClaim>;
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
  await sql.raw(STEER_SQL).execute(trx);
}

async function claimBoth(db: Executor, req: ClaimRequest): Promise<ClaimedJob[]> {
  // Two picks, each walking its own partial index in order and stopping at its limit: jobs
  // whose worker died first, then due jobs. One pick with an OR of both made the database sort
  // every due job on each claim, so a claim cost grew with the backlog.
  const expired = req.includeExpired === false ? [] : await claimPicked(db, req, 'running', req.limit);
  const left = req.limit - expired.length;
  return left > 0 ? [...expired, ...(await claimPicked(db, req, 'queued', left))] : expired;
}

/** What changes from one pick to the next: the values of its statement. */
interface PickValues {
  owner: string;
  now: string;
  /** The lease's end for each kind, in the order of `kinds`; one value when all leases are equal. */
  untils: readonly string[];
  limit: number;
}

function pickValues(req: ClaimRequest, kinds: readonly string[], limit: number): PickValues {
  const untilOf = (kind: string) => iso(req.now + (req.leases.get(kind) ?? 0));
  const distinct = new Set(req.leases.values()).size;
  return {
    owner: req.workerId,
    now: iso(req.now),
    untils: distinct > 1 ? kinds.map(untilOf) : [untilOf(kinds[0] ?? '')],
    limit,
  };
}

/**
 * The picks a worker makes, compiled once per shape (the kinds it handles, whether their leases
 * differ, which pick): a busy worker claims after every group of jobs, and building the
 * statement through Kysely cost more than SQLite took to run it.
 */
const compiledPicks = new Map<string, ReturnType<typeof compilePick>>();

function compilePick(kinds: readonly string[], from: 'queued' | 'running', leaseCount: number) {
  const untilArgs = Array.from({ length: leaseCount }, (_, i) => `until${i}`);
  return preparedQuery(
    ['owner', 'now', 'limit', ...untilArgs],
    (db, a) =>
      pickQuery(db, engineOf(db), kinds, from, {
        owner: a.owner as string,
        now: a.now as string,
        untils: untilArgs.map((u) => a[u] as string),
        // A stand-in: the compiled statement takes the limit as a parameter.
        limit: a.limit as unknown as number,
      }),
    // PostgreSQL plans each pick with its own values, as before: a generic plan would not see
    // the limit, and the pick's plan is what keeps a claim's cost flat as the queue grows.
    { named: false },
  );
}

async function claimPicked(
  db: Executor,
  req: ClaimRequest,
  from: 'queued' | 'running',
  limit: number,
): Promise<ClaimedJob[]> {
  const kinds = [...req.leases.keys()];
  const v = pickValues(req, kinds, limit);
  const key = `${from}\u0000${v.untils.length}\u0000${kinds.join('\u0000')}`;
  let pick = compiledPicks.get(key);
  if (!pick) compiledPicks.set(key, (pick = compilePick(kinds, from, v.untils.length)));
  const values: Record<string, string | number> = { owner: v.owner, now: v.now, limit: v.limit };
  v.untils.forEach((u, i) => (values[`until${i}`] = u));
  return pick(db, values);
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
  return pickQuery(db, engine, kinds, from, pickValues(req, kinds, limit));
}

function pickQuery(db: Executor, engine: Engine, kinds: readonly string[], from: 'queued' | 'running', v: PickValues) {
  // The index a pick walks: jobs_queued by run_at, jobs_leased by lease_until (009-job-indexes).
  const order = from === 'queued' ? 'run_at' : 'lease_until';
  return db
    .updateTable('jobs')
    .set((eb) => {
      let leaseUntil: Expression<string> = eb.val(v.untils[0] ?? v.now);
      if (v.untils.length > 1) {
        // Each kind gets its own lease in the same statement.
        const [first = '', ...rest] = kinds;
        let c = eb
          .case()
          .when('kind', '=', first)
          .then(v.untils[0] ?? v.now);
        rest.forEach((k, i) => (c = c.when('kind', '=', k).then(v.untils[i + 1] ?? v.now)));
        leaseUntil = c.else(v.now).end();
      }
      return {
        status: 'running',
        attempts: eb('attempts', '+', 1),
        lease_owner: v.owner,
        lease_until: leaseUntil,
        updated_at: v.now,
      };
    })
    .where('id', 'in', (eb) => {
      const picked = eb
        .selectFrom('jobs')
        .select('id')
        // A literal, so that both engines see at planning time which partial index applies.
        .where('status', '=', sql.lit(from))
        .where('kind', 'in', [...kinds])
        .where(order, from === 'queued' ? '<=' : '<', v.now)
        .orderBy(order)
        .limit(v.limit);
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

// Every group of jobs that ends together runs this: compiled once, the ids one parameter.
const completeOwned = preparedQuery(['ids', 'owner', 'attempt', 'now'], (db, a) =>
  db
    .updateTable('jobs')
    .set({ status: 'done', lease_until: null, updated_at: a.now })
    .where(inIdList(db, 'id', a.ids))
    .where('lease_owner', '=', a.owner)
    // A stand-in: the compiled statement takes the attempt number as a parameter.
    .where('attempts', '=', a.attempt as unknown as number)
    .where('status', '=', 'running')
    .returning('id'),
);

/**
 * Ends claimed jobs as done, one statement per owner and attempt number (in practice one):
 * inside a handler's transaction, so the job ends with the writes that made it done, or by
 * the worker for many handlers at once. Answers the ids ended; the others' claims were lost
 * (another worker owns them now) and they were not touched.
 */
export async function completeJobs(db: Executor, claims: readonly Claim[], now: number): Promise<Set<string>> {
  const ended = new Set<string>();
  for (const group of byOwnerAndAttempt(claims)) {
    const first = group[0] as Claim;
    const rows = await completeOwned(db, {
      ids: idList(
        db,
        group.map((c) => c.id),
      ),
      owner: first.workerId,
      attempt: first.attempt,
      now: iso(now),
    });
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
