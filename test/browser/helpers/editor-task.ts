import type { Page } from 'playwright-core';
import type { ConsoleServer } from './console-server.js';
import { holdInLabel, LABEL_STAGES } from './editor-page.js';
import { apiAs } from './project-data.js';

/** An asset as the import takes it (`POST /project/{id}/cloud`), with the externalId its task is found by. */
export interface EditorAsset {
  data: string;
  externalId: string;
  dataset?: string[];
  /** The editor the asset opens in (`pct` for a point cloud's frames). */
  editorType?: string;
  metadata?: Record<string, unknown>;
}

export interface EditorProjectSpec {
  name: string;
  /** Settings the project is created with (`type`, `pctConfig`). */
  create?: Record<string, unknown>;
  categorySchema: Record<string, unknown>;
  /** The workflow: Start, Label, Complete unless said. */
  stages?: unknown[];
  /** Other project settings sent with the ontology (`taskSkipEnabled`...). */
  settings?: Record<string, unknown>;
  /** Made Labelers of the project. */
  labelers?: string[];
  assets: EditorAsset[];
}

export interface EditorProject {
  id: string;
  /** The imported tasks' ids by their assets' externalId. */
  tasks: Record<string, string>;
}

/**
 * What the editor's browser tests set up before a labeler opens a task: a project with its
 * ontology and workflow, its labelers, and its assets imported as tasks.
 */
export async function editorProject(server: ConsoleServer, spec: EditorProjectSpec): Promise<EditorProject> {
  const api = apiAs(server);
  const { project } = await api<{ project: { _id: string } }>('POST', '/v2/project', {
    ...spec.create,
    name: spec.name,
  });
  await api('POST', `/v2/project/${project._id}`, {
    ...spec.settings,
    categorySchema: spec.categorySchema,
    stages: spec.stages ?? LABEL_STAGES,
  });
  await api('POST', `/v2/project/${project._id}/assigned`, {
    assignees: spec.labelers ?? ['labeler@example.com'],
    role: 'Labeler',
  });
  const { assets } = await api<{ assets: { externalId: string; taskId: string }[] }>(
    'POST',
    `/v2/project/${project._id}/cloud`,
    { assets: spec.assets },
  );
  return { id: project._id, tasks: Object.fromEntries(assets.map((a) => [a.externalId, a.taskId])) };
}

/**
 * Opens a task in the editor for `user` (signed in on `page`): the task is given to them in its
 * Label stage, then its address opened.
 */
export async function openEditorTask(
  page: Page,
  server: ConsoleServer,
  taskId: string | undefined,
  user = 'labeler@example.com',
): Promise<void> {
  await holdInLabel(server, taskId, user);
  await page.goto(`/work/tasks/${taskId}`);
}
