import { type ProjectPermission, roleCan, roleWorksStage } from '../../../src/schemas/roles';
import type { SessionView } from '../auth/session-api';
import type { ProjectRole, Stage } from './types';

/*
 * What the signed-in person may do, from the roles table the server enforces
 * (src/schemas/roles.ts): the console shows each page and control only to the roles that may
 * use it, rather than showing it and answering "Not allowed".
 */

export type { ProjectPermission };

/** The caller's role on a project as GET /project/{id} answers it (`role`); Labeler when unknown. */
export function projectRole(project: { role?: ProjectRole | undefined }): ProjectRole {
  return project.role ?? 'Labeler';
}

export function may(project: { role?: ProjectRole | undefined }, permission: ProjectPermission): boolean {
  return roleCan(projectRole(project), permission);
}

/** The stages of the project the caller may take tasks from (Label, and Review for Reviewers and up). */
export function workableStages(project: { role?: ProjectRole | undefined; stages: Stage[] }): Stage[] {
  const role = projectRole(project);
  return project.stages.filter((s) => (s.type === 'Label' || s.type === 'Review') && roleWorksStage(role, s.type));
}

export function isOrgAdmin(session: Pick<SessionView, 'organizationRole'> | null | undefined): boolean {
  return session?.organizationRole === 'owner' || session?.organizationRole === 'admin';
}

/** The caller's role on a project from the session: owners and admins act as Manager everywhere. */
export function sessionRole(
  session: Pick<SessionView, 'organizationRole' | 'projectRoles'> | null | undefined,
  projectId: string,
): ProjectRole | undefined {
  if (isOrgAdmin(session)) return 'Manager';
  const role = session?.projectRoles.find((r) => r.projectId === projectId)?.role;
  return role === 'Manager' || role === 'Lead' || role === 'Reviewer' || role === 'Labeler' ? role : undefined;
}

/**
 * Someone who only labels or reviews: an organization member whose every project role is
 * Labeler or Reviewer. The console offers them their work, not the manager's forms (a new
 * project, the organization's members); the API would still let a member create a project.
 */
export function onlyWorks(session: Pick<SessionView, 'organizationRole' | 'projectRoles'> | null | undefined): boolean {
  if (!session || isOrgAdmin(session)) return false;
  const roles = session.projectRoles.map((r) => r.role);
  return roles.length > 0 && roles.every((r) => r === 'Labeler' || r === 'Reviewer');
}
