/**
 * The roles table of DECISIONS section 2 as data, with no imports: the server's access checks
 * (src/access.ts) and the console (web/src/api/access.ts), which shows each page and
 * control only to the roles that may use it, read this one table.
 */

export type RoleName = 'Manager' | 'Lead' | 'Reviewer' | 'Labeler';

/**
 * Operations of DECISIONS section 2, from the least to the most privileged.
 * - read: the project, its batches, own tasks, create issues
 * - readAll: every task, task history, metrics
 * - review: work Review stages (and Label stages: see canWorkStage)
 * - import: assets, batches, attachments, pre-labels, requeue, assign, rerun webhook, any issue
 * - manage: settings, workflow, ontology, export, delete, members
 */
export type ProjectPermission = 'read' | 'readAll' | 'review' | 'import' | 'manage';

export const GRANTS: Readonly<Record<RoleName, readonly ProjectPermission[]>> = {
  Manager: ['read', 'readAll', 'review', 'import', 'manage'],
  Lead: ['read', 'readAll', 'review', 'import'],
  Reviewer: ['read', 'readAll', 'review'],
  Labeler: ['read'],
};

export function roleCan(role: RoleName, permission: ProjectPermission): boolean {
  return GRANTS[role].includes(permission);
}

/** Labelers work Label stages only; Reviewers and above also Review stages. */
export function roleWorksStage(role: RoleName, stageType: string): boolean {
  if (stageType === 'Label') return true;
  if (stageType === 'Review') return roleCan(role, 'review');
  return roleCan(role, 'import');
}
