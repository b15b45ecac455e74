import { forbidden } from './errors.js';
import { type ProjectPermission, roleCan, roleWorksStage } from './schemas/roles.js';

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
  /** The client address of the request (what the audit log records); unset outside requests. */
  address?: string;
  /** Set when a session cookie authenticated the request: its writes must carry this CSRF token. */
  session?: { id: string; csrfToken: string; expiresAt: string };
}

export const ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

export const PROJECT_ROLES = ['Manager', 'Lead', 'Reviewer', 'Labeler'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export type { ProjectPermission };

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
  return roleCan(role, permission);
}

export function demand(role: ProjectRole, permission: ProjectPermission): void {
  if (!can(role, permission)) throw forbidden();
}

/** Labelers work Label stages only; Reviewers and above also Review stages. */
export function canWorkStage(role: ProjectRole, stageType: string): boolean {
  return roleWorksStage(role, stageType);
}

export function demandOrgAdmin(p: Principal): void {
  if (!isOrgAdmin(p)) throw forbidden('only organization owners and admins may do this');
}
