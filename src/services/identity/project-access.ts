import { notFound } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { findProjectForMember, type ProjectWithRole } from '../../store/repositories/project.repository.js';
import type { ProjectRow } from '../../store/schema.js';
import { demand, effectiveRole, type Principal, type ProjectPermission, type ProjectRole } from '../../access.js';

/*
 * The access gate every domain passes before it touches a project's data. It lives below the
 * domains so that each of them can call it without depending on the projects domain.
 */

export interface LoadedProject {
  row: ProjectRow;
  role: ProjectRole;
}

/**
 * The project as the caller may see it: 404 when it does not exist or is invisible to the
 * caller (its existence is not leaked), 403 when visible but the permission is missing.
 */
export async function loadProject(
  db: Executor,
  p: Principal,
  projectId: string,
  permission: ProjectPermission,
): Promise<LoadedProject> {
  const found = isId(projectId) ? await findProjectForMember(db, projectId, p.email) : undefined;
  const { row, role } = visibleProject(p, found, permission);
  return { row, role };
}

/** The found project if the caller may see it with `permission`: 404 when not found or invisible, 403 when the permission is missing. */
export function visibleProject<T extends ProjectWithRole>(
  p: Principal,
  found: T | undefined,
  permission: ProjectPermission,
) {
  const role = found ? effectiveRole(p, found.row.organization_id, found.memberRole) : undefined;
  if (!found || !role) throw notFound('project');
  demand(role, permission);
  return { ...found, role };
}
