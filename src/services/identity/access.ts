import { forbidden } from '../../errors.js';

/** The caller behind a valid API key or console session. */
export interface Principal {
  /** The API key's id, or `session:<id>` for a console session (the rate limiter's counter). */
  keyId: string;
  userId: string;
  email: string;
  orgId: string;
  orgRole: OrgRole;
  plan: string;
  /** Enterprise plans carry their own number; null means "the plan's fixed limit". */
  planLimit: number | null;
  /** Set when a session cookie authenticated the request: its writes must carry this CSRF token. */
  session?: { id: string; csrfToken: string; expiresAt: string };
}

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export const PROJECT_ROLES = ['Manager', 'Lead', 'Reviewer', 'Labeler'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

/**
 * Operations of DECISIONS section 2, from the least to the most privileged.
 * - read: the project, its batches, own tasks, create issues
 * - readAll: every task, task history, metrics
 * - review: work Review stages (and Label stages: see canWorkStage)
 * - import: assets, batches, attachments, pre-labels, requeue, assign, rerun webhook, any issue
 * - manage: settings, workflow, ontology, export, delete, members
 */
export type ProjectPermission = 'read' | 'readAll' | 'review' | 'import' | 'manage';

const GRANTS: Record<ProjectRole, ReadonlySet<ProjectPermission>> = {
  Manager: new Set(['read', 'readAll', 'review', 'import', 'manage']),
  Lead: new Set(['read', 'readAll', 'review', 'import']),
  Reviewer: new Set(['read', 'readAll', 'review']),
  Labeler: new Set(['read']),
};

export function isProjectRole(value: unknown): value is ProjectRole {
  return typeof value === 'string' && (PROJECT_ROLES as readonly string[]).includes(value);
}

export function isOrgRole(value: unknown): value is OrgRole {
  return typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);
}

export function isOrgAdmin(p: Principal): boolean {
  return p.orgRole === 'owner' || p.orgRole === 'admin';
}

/**
 * The caller's effective role on a project of `projectOrgId`: org owners and admins act as
 * Manager on every project of their organization; others have the role they were given.
 * Undefined means the project is invisible to the caller (answered 404, never 403).
 */
export function effectiveRole(
  p: Principal,
  projectOrgId: string,
  memberRole: string | undefined,
): ProjectRole | undefined {
  if (projectOrgId !== p.orgId) return undefined;
  if (isOrgAdmin(p)) return 'Manager';
  return isProjectRole(memberRole) ? memberRole : undefined;
}

export function can(role: ProjectRole, permission: ProjectPermission): boolean {
  return GRANTS[role].has(permission);
}

export function demand(role: ProjectRole, permission: ProjectPermission): void {
  if (!can(role, permission)) throw forbidden();
}

/** Labelers work Label stages only; Reviewers and above also Review stages. */
export function canWorkStage(role: ProjectRole, stageType: string): boolean {
  if (stageType === 'Label') return true;
  if (stageType === 'Review') return can(role, 'review');
  return can(role, 'import');
}

export function demandOrgAdmin(p: Principal): void {
  if (!isOrgAdmin(p)) throw forbidden('only organization owners and admins may do this');
}
