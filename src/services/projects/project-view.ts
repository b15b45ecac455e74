import type { CategorySchema } from '../../schemas/category-schema.js';
import { publicPctConfig } from './pct-validation-secret.js';
import type { Stage } from '../../schemas/stage.js';
import type { ProjectInfo } from '../../workflow/types.js';
import type { ProjectRow } from '../../store/schema.js';
import type { ProjectRole } from '../../access.js';
import type { BatchView } from './batches.js';
import { publicStage } from './webhook-credentials.js';
import { parseJson } from '../../stored-json.js';

/**
 * ProjectUpdateRequest fields kept together in the `settings` document, with the value a
 * project answers before anyone set them.
 */
export const SETTINGS_DEFAULTS = {
  benchmarkEnabled: false,
  benchmarkRatio: 0,
  benchmarkCutoff: false,
  // An extension: the average benchmark score below which the cutoff stops a labeler.
  benchmarkThreshold: 70,
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
  // On unless a project turned it off: a Labeler's queue that shows no waiting count reads as
  // empty ("0 assigned to you" while tasks wait). Stored settings keep an explicit false.
  queueCountsEnabled: true,
  // An extension: segmentation objects of one image may overlap unless this says which one wins.
  segmentationOverlap: 'allow',
  // An extension: a patient's DICOM tags in asset metadata stay out of exports and webhooks.
  patientTagsExported: false,
  assetBuilderTemplates: [],
} as const satisfies Record<string, unknown>;

export type SettingKey = keyof typeof SETTINGS_DEFAULTS;
export const SETTING_KEYS = Object.keys(SETTINGS_DEFAULTS) as SettingKey[];

export function projectSettings(row: ProjectRow, parse = parseJson): Record<SettingKey, unknown> {
  return { ...SETTINGS_DEFAULTS, ...parse<Record<string, unknown>>(row.settings, {}) };
}

/*
 * Parsed project documents (ontology, stages, settings) by their stored text, for answers only:
 * parsing them again on every GET /project was 9 % of its CPU. The values are shared between
 * answers, so they are frozen (a writer would throw, not change another answer); the cache holds
 * at most CACHED_JSON_CHARS of text, oldest out first.
 */
const CACHED_JSON_CHARS = 4_000_000;
const parsedDocuments = new Map<string, unknown>();
let cachedChars = 0;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A stored document parsed once per text and shared, frozen: for answers and reads only. */
export function cachedJson<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  const known = parsedDocuments.get(text);
  if (known !== undefined) return known as T;
  const value = deepFreeze(JSON.parse(text) as T);
  if (text.length > CACHED_JSON_CHARS) return value;
  for (const old of parsedDocuments.keys()) {
    if (cachedChars + text.length <= CACHED_JSON_CHARS) break;
    parsedDocuments.delete(old);
    cachedChars -= old.length;
  }
  parsedDocuments.set(text, value);
  cachedChars += text.length;
  return value;
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

/** The contract's Project resource. */
export function projectView(row: ProjectRow, extras: ProjectExtras): Record<string, unknown> {
  const view: Record<string, unknown> = {
    _id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    owner: row.owner_email,
    organization: row.organization_id,
    categorySchema: cachedJson(row.category_schema, { tools: [], classifications: [], relations: [] }),
    // Webhook credentials are write-only, for every role (services/projects/webhook-credentials).
    stages: cachedJson<Stage[]>(row.stages, []).map(publicStage),
    assignedTo: extras.members.map((m) => ({ assignee: m.email, role: m.role })),
    batches: extras.batches,
    queueVersion: row.queue_version,
    assetCount: row.asset_count,
    ...projectSettings(row, cachedJson),
    deleted: row.deleted === 1,
    archived: row.archived_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.archived_at !== null) view.archivedAt = row.archived_at;
  if (row.pct_config !== null) view.pctConfig = publicPctConfig(cachedJson(row.pct_config, {}));
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
    ...(row.archived_at !== null ? { archived: true } : {}),
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
