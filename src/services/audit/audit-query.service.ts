import type { AppContext } from '../../context.js';
import { invalidField, notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import { type AuditFilter, listAuditRecords } from '../../store/repositories/audit.repository.js';
import type { AuditLogTable } from '../../store/schema.js';
import { demandOrgAdmin, type Principal } from '../../access.js';

export interface AuditQuery {
  from?: string | undefined;
  to?: string | undefined;
  userId?: string | undefined;
  operation?: string | undefined;
  targetId?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

export const AUDIT_PAGE_DEFAULT = 100;
export const AUDIT_PAGE_MAX = 1000;

/** The record as the API answers it. */
export function auditView(r: AuditLogTable) {
  return {
    _id: r.id,
    at: r.at,
    organizationId: r.organization_id,
    userId: r.user_id,
    actor: r.actor,
    address: r.address,
    operation: r.operation,
    target: { type: r.target_type, id: r.target_id },
    projectId: r.project_id,
    fields: JSON.parse(r.fields) as string[],
  };
}

/** The first id of the second `ms` falls in: ids start with their creation's seconds. */
function idAtSecond(ms: number, roundUp: boolean): string {
  const seconds = roundUp ? Math.ceil(ms / 1000) : Math.floor(ms / 1000);
  return seconds.toString(16).padStart(8, '0') + '0'.repeat(16);
}

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidField(field, 'must be a date and time (ISO 8601)');
  return ms;
}

/** Checks who asks and what, and turns the query into the repository's filter. */
export function auditFilter(p: Principal, orgId: string, q: AuditQuery): AuditFilter {
  // Another organization is invisible, like a project the caller cannot see.
  if (orgId !== p.orgId) throw notFound('organization');
  demandOrgAdmin(p);
  const from = timeOf(q.from, 'from');
  const to = timeOf(q.to, 'to');
  if (from !== undefined && to !== undefined && to < from) throw invalidField('to', 'must not be before from');
  if (q.cursor !== undefined && !isId(q.cursor)) throw invalidField('cursor', 'must be the nextCursor of a page');
  return {
    orgId,
    userId: q.userId,
    operation: q.operation,
    targetId: q.targetId,
    idFrom: from === undefined ? undefined : idAtSecond(from, false),
    idBefore: to === undefined ? undefined : idAtSecond(to, true),
    from: from === undefined ? undefined : new Date(from).toISOString(),
    to: to === undefined ? undefined : new Date(to).toISOString(),
    after: q.cursor,
  };
}

/** A page of the organization's records, newest first, and the cursor of the next page. */
export async function listAudit(ctx: AppContext, p: Principal, orgId: string, q: AuditQuery) {
  const filter = auditFilter(p, orgId, q);
  const limit = q.limit ?? AUDIT_PAGE_DEFAULT;
  const rows = await listAuditRecords(ctx.store.db, filter, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { records: page.map(auditView), nextCursor: rows.length > limit && last ? last.id : null };
}

/** Every record the query matches, newest first, read a page at a time (the NDJSON export). */
export async function* exportAudit(ctx: AppContext, p: Principal, orgId: string, q: AuditQuery) {
  const filter = auditFilter(p, orgId, q);
  for (;;) {
    const rows = await listAuditRecords(ctx.store.db, filter, AUDIT_PAGE_MAX);
    for (const r of rows) yield `${JSON.stringify(auditView(r))}\n`;
    const last = rows[rows.length - 1];
    if (rows.length < AUDIT_PAGE_MAX || !last) return;
    filter.after = last.id;
  }
}
