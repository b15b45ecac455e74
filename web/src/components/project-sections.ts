import { may, projectRole, type ProjectPermission } from '../api/access';
import type { Project } from '../api/types';
import { setupDone } from '../pages/projects/setup-checklist';

/**
 * The sections of a project and the permission each needs (the roles table,
 * src/schemas/roles.ts): the side navigation lists only the sections the caller may use, and a
 * section opened by its address without the permission sends them to their landing page.
 */
export const SECTIONS = [
  { path: 'setup', label: 'Setup', needs: 'manage' },
  { path: 'work', label: 'Your work', needs: 'read' },
  { path: 'workflow', label: 'Workflow', needs: 'readAll' },
  { path: 'ontology', label: 'Ontology', needs: 'manage' },
  { path: 'tasks', label: 'Tasks', needs: 'readAll' },
  { path: 'assets', label: 'Assets', needs: 'import' },
  { path: 'overview', label: 'Overview', needs: 'readAll' },
  { path: 'quality', label: 'Quality', needs: 'manage' },
  { path: 'exports', label: 'Exports', needs: 'manage' },
  { path: 'settings', label: 'Settings', needs: 'manage' },
] as const satisfies readonly { path: string; label: string; needs: ProjectPermission }[];

export type SectionPath = (typeof SECTIONS)[number]['path'];

export function sectionsFor(project: Project) {
  return SECTIONS.filter((s) => may(project, s.needs));
}

export function maySee(project: Project, path: string): boolean {
  const section = SECTIONS.find((s) => s.path === path);
  return section ? may(project, section.needs) : true;
}

/**
 * Where a project opens: a Manager on the setup checklist until it is done, then the workflow;
 * a Lead on the tasks; Reviewers and Labelers on their own work.
 */
export function landingSection(project: Project): SectionPath {
  const role = projectRole(project);
  if (role === 'Manager') return setupDone(project) ? 'workflow' : 'setup';
  if (role === 'Lead') return 'tasks';
  return 'work';
}
