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
import type { Expression } from 'kysely';
import type { Db, Engine } from '../store/db.js';
import type { JobRow } from '../store/schema.js';

export interface ClaimRequest {
  workerId: string;
  /** Kinds this worker handles, with the lease each one gets. */
  leases: ReadonlyMap<string, number>;
  limit: number;
  now: number;
}

/** The claim that a finishing or renewing worker must still hold. */
export interface Claim {
  id: string;
  workerId: string;
  attempt: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function claimJobs(db: Db, engine: Engine, req: ClaimRequest): Promise<JobRow[]> {
  if (req.leases.size === 0 || req.limit < 1) return [];
  // Two picks, each walking the (status, run_at) index in order and stopping at its limit: jobs
  // whose worker died first, then due jobs. One pick with an OR of both made the database sort
  // every due job on each claim, so a claim cost grew with the backlog.
  const expired = await claimPicked(db, engine, req, 'running', req.limit);
  const left = req.limit - expired.length;
  return left > 0 ? [...expired, ...(await claimPicked(db, engine, req, 'queued', left))] : expired;
}

function claimPicked(
  db: Db,
  engine: Engine,
  req: ClaimRequest,
  from: 'queued' | 'running',
  limit: number,
): Promise<JobRow[]> {
  const kinds = [...req.leases.keys()];
  const now = iso(req.now);
  const distinct = [...new Set(req.leases.values())];
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
        .where('status', '=', from)
        .where('kind', 'in', kinds)
        .where(from === 'queued' ? 'run_at' : 'lease_until', from === 'queued' ? '<=' : '<', now)
        .orderBy('run_at')
        .limit(limit);
      return engine === 'postgres' ? picked.forUpdate().skipLocked() : picked;
    })
    .returningAll()
    .execute();
}

function ownClaim(db: Db, claim: Claim) {
  return db
    .updateTable('jobs')
    .where('id', '=', claim.id)
    .where('lease_owner', '=', claim.workerId)
    .where('attempts', '=', claim.attempt)
    .where('status', '=', 'running');
}

/** Extends the lease; false when the claim is no longer ours. */
export async function renewLease(db: Db, claim: Claim, now: number, leaseMs: number): Promise<boolean> {
  const r = await ownClaim(db, claim)
    .set({ lease_until: iso(now + leaseMs), updated_at: iso(now) })
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export type Outcome =
  { status: 'done' } | { status: 'failed'; error: string } | { status: 'retry'; error: string; runAt: number };

/** Records how the attempt ended; false when the claim was lost and nothing was written. */
export async function finishJob(db: Db, claim: Claim, now: number, outcome: Outcome): Promise<boolean> {
  const common = { updated_at: iso(now), lease_until: null };
  const values =
    outcome.status === 'done'
      ? { ...common, status: 'done' }
      : outcome.status === 'failed'
        ? { ...common, status: 'failed', last_error: outcome.error }
        : // Back in the queue: the lease owner goes, so nobody mistakes it for a live claim.
          { ...common, status: 'queued', lease_owner: null, run_at: iso(outcome.runAt), last_error: outcome.error };
  const r = await ownClaim(db, claim).set(values).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}
