import type { CategorySchema } from '../../schemas/category-schema.js';
import type { Stage } from '../../schemas/stage.js';
import type { ProjectInfo } from '../../workflow/types.js';
import type { ProjectRow } from '../../store/schema.js';
import type { ProjectRole } from '../identity/access.js';
import type { BatchView } from './batches.js';

/**
 * ProjectUpdateRequest fields kept together in the `settings` document, with the value a
 * project answers before anyone set them.
 */
export const SETTINGS_DEFAULTS = {
  benchmarkEnabled: false,
  benchmarkRatio: 0,
  benchmarkCutoff: false,
  instructions: '',
  ocrLanguage: '',
  idleTimeout: 0,
  projectPlugins: {},
  pluginPresets: [],
  errorCodesEnabled: false,
  errorSchema: {},
  exportStorageId: '',
  exportStorageBucket: '',
  exportStoragePath: '',
  exportStorageEnabled: false,
  taskSkipEnabled: false,
  unassignSkippedTask: false,
  gcSyncEnabled: false,
  tags: [],
  queueCountsEnabled: false,
  assetBuilderTemplates: [],
} as const satisfies Record<string, unknown>;

export type SettingKey = keyof typeof SETTINGS_DEFAULTS;
export const SETTING_KEYS = Object.keys(SETTINGS_DEFAULTS) as SettingKey[];

export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  return JSON.parse(text) as T;
}

export function projectSettings(row: ProjectRow): Record<SettingKey, unknown> {
  return { ...SETTINGS_DEFAULTS, ...parseJson<Record<string, unknown>>(row.settings, {}) };
}

/** The project's own storage, as its settings name it (trimmed; '' when unset or not text). */
export function projectStorage(row: ProjectRow): { enabled: boolean; storageId: string; bucket: string; path: string } {
  const settings = projectSettings(row);
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  return {
    enabled: settings.exportStorageEnabled === true,
    storageId: text(settings.exportStorageId),
    bucket: text(settings.exportStorageBucket),
    path: typeof settings.exportStoragePath === 'string' ? settings.exportStoragePath : '',
  };
}

export interface ProjectExtras {
  members: { email: string; role: string }[];
  batches: BatchView[];
  role?: ProjectRole | undefined;
}

/**
 * Webhook credentials are shown to Managers only: they edit the workflow, and a client that
 * reads the stages, changes one and writes them back must not lose the secret on the way.
 */
function visibleStages(stages: Stage[], role: ProjectRole | undefined): Stage[] {
  if (role === 'Manager') return stages;
  return stages.map((stage) => {
    if (!stage.webhook) return stage;
    const { secret: _secret, token: _token, ...webhook } = stage.webhook;
    return { ...stage, webhook };
  });
}

/** The contract's Project resource. */
export function projectView(row: ProjectRow, extras: ProjectExtras): Record<string, unknown> {
  const view: Record<string, unknown> = {
    _id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    owner: row.owner_email,
    organization: row.organization_id,
    categorySchema: parseJson(row.category_schema, { tools: [], classifications: [], relations: [] }),
    stages: visibleStages(parseJson<Stage[]>(row.stages, []), extras.role),
    assignedTo: extras.members.map((m) => ({ assignee: m.email, role: m.role })),
    batches: extras.batches,
    queueVersion: row.queue_version,
    assetCount: row.asset_count,
    ...projectSettings(row),
    deleted: row.deleted === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.pct_config !== null) view.pctConfig = parseJson(row.pct_config, {});
  if (extras.role) view.role = extras.role;
  return view;
}

/** The contract's ProjectListItem. */
export function projectListItem(row: ProjectRow): Record<string, unknown> {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    organization: row.organization_id,
    createdAt: row.created_at,
  };
}

/** What routing and answer validation need of a project. */
export function projectInfo(row: ProjectRow): ProjectInfo {
  return {
    id: row.id,
    orgId: row.organization_id,
    name: row.name,
    stages: parseJson<Stage[]>(row.stages, []),
    categorySchema: parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] }),
    settings: projectSettings(row),
  };
}
