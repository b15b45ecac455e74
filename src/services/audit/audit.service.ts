import type { Clock } from '../../adapters/clock.js';
import { newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { insertAuditRecord } from '../../store/repositories/audit.repository.js';
import type { AuditLogTable } from '../../store/schema.js';
import type { Principal } from '../../access.js';

/** Who made a change: a caller (key or session), or someone signing in (no key yet). */
export interface AuditActor {
  orgId: string;
  userId: string | null;
  /** The API key's id, `session:<id>` or `cli`; never the key or the cookie. */
  keyId: string | null;
  address: string | null;
}

/** What changed: the operation, its target, and the names (never the values) of the fields. */
export interface AuditEntry {
  operation: string;
  targetType: string;
  targetId: string;
  projectId?: string | null | undefined;
  fields?: readonly string[] | undefined;
}

/** A change made with the `annotary` command on the server: no person, key or address. */
export function cliActor(orgId: string): AuditActor {
  return { orgId, userId: null, keyId: 'cli', address: null };
}

export function actorOf(p: Principal): AuditActor {
  return { orgId: p.orgId, userId: p.userId, keyId: p.keyId, address: p.address ?? null };
}

/** The row of one record, made now. */
export function auditRow(clock: Clock, who: Principal | AuditActor, e: AuditEntry): AuditLogTable {
  const actor = 'email' in who ? actorOf(who) : who;
  const now = clock.now();
  return {
    id: newId(now),
    organization_id: actor.orgId,
    at: new Date(now).toISOString(),
    user_id: actor.userId,
    actor: actor.keyId,
    address: actor.address,
    operation: e.operation,
    target_type: e.targetType,
    target_id: e.targetId,
    project_id: e.projectId ?? null,
    fields: JSON.stringify([...(e.fields ?? [])].sort()),
  };
}

/**
 * Appends one record. Call it with the transaction that makes the change, so the change and
 * its record commit together or not at all (on PostgreSQL the record is sent with the COMMIT).
 */
export async function audit(db: Executor, clock: Clock, who: Principal | AuditActor, e: AuditEntry): Promise<void> {
  await insertAuditRecord(db, auditRow(clock, who, e));
}
