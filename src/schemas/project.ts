import { Type, type Static } from 'typebox';
import { CategorySchema } from './category-schema.js';
import { FreeObject, Id, KEEP_UNKNOWN, OptionalField, StringEnum } from './common.js';
import { Success } from './envelope.js';
import { Stage } from './stage.js';
import { OVERLAP_RULES } from '../shared/overlap.js';

const PATIENT_TAGS_EXPORTED =
  "an extension: true copies the DICOM tags that identify a patient (PatientName, PatientID, PatientBirthDate...) found in assets' metadata into exports and webhook payloads; false (the default) leaves them out";
const SEGMENTATION_OVERLAP =
  'an extension: whether segmentation objects of one image (one frame or page) may overlap: `allow` (the default), ' +
  '`later-wins` (the object drawn later keeps the shared area) or `earlier-wins` (the one drawn first keeps it); ' +
  'the editor applies it as objects are drawn and the server repairs saved answers by it';

export const PROJECT_TYPES = ['standard', 'pct', 'iframe'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];
/** `ango` is the Python client's name for `standard` (DECISIONS 3); the service maps it. */
export const PROJECT_TYPE_INPUTS = [...PROJECT_TYPES, 'ango'] as const;

export const PROJECT_ROLES = ['Manager', 'Lead', 'Labeler', 'Reviewer'] as const;
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export const ExternalValidation = Type.Object(
  {
    enabled: OptionalField(Type.Boolean({ default: false })),
    apiUrl: OptionalField(Type.String({ default: '' })),
    singleFrame: OptionalField(Type.Boolean({ default: false })),
    specificFrame: OptionalField(Type.Boolean({ default: false })),
    // Strings are accepted and coerced by normalizePctConfig; the stored form is a number or null.
    frameNumbers: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'string', 'null'] })),
    secret: Type.Optional(
      Type.String({
        description:
          'sent as the Secret header of validation calls; write-only (answered as hasSecret), kept when left out, "" removes it',
      }),
    ),
    hasSecret: Type.Optional(Type.Boolean({ description: 'a secret is set (answers only)' })),
  },
  KEEP_UNKNOWN,
);
export type ExternalValidation = Static<typeof ExternalValidation>;

export const SegmentationValidation = Type.Object(
  {
    enabled: OptionalField(Type.Boolean({ default: false })),
    completeCoverage: OptionalField(Type.Number({ default: 100 })),
  },
  KEEP_UNKNOWN,
);
export type SegmentationValidation = Static<typeof SegmentationValidation>;

export const PctConfig = Type.Object(
  {
    allowOverlapping: OptionalField(Type.Boolean({ default: false })),
    trackingMultipleSensors: OptionalField(Type.Boolean({ default: false })),
    segmentationMode: OptionalField(Type.Boolean({ default: false })),
    externalValidation: OptionalField(ExternalValidation),
    segmentationValidation: OptionalField(SegmentationValidation),
  },
  KEEP_UNKNOWN,
);
export type PctConfig = Static<typeof PctConfig>;

export const Assignee = Type.Object({ assignee: Type.String(), role: StringEnum(PROJECT_ROLES) });
export type Assignee = Static<typeof Assignee>;

export const Batch = Type.Object({
  _id: Type.Optional(Id),
  name: Type.String({ minLength: 1 }),
});
export type Batch = Static<typeof Batch>;

export const ProjectCreateRequest = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: OptionalField(Type.String()),
  type: OptionalField(StringEnum(PROJECT_TYPE_INPUTS, { default: 'standard' })),
  pctConfig: OptionalField(PctConfig),
});
export type ProjectCreateRequest = Static<typeof ProjectCreateRequest>;

/**
 * Every field optional; "at least one field" is the service's check (a `minProperties` would
 * count the unknown extras clients send). No defaults here: an absent field means unchanged.
 */
export const ProjectUpdateRequest = Type.Object({
  name: OptionalField(Type.String({ minLength: 1 })),
  description: OptionalField(Type.String()),
  categorySchema: Type.Optional(CategorySchema),
  stages: OptionalField(Type.Array(Stage)),
  batches: OptionalField(Type.Array(Batch)),
  benchmarkEnabled: OptionalField(Type.Boolean()),
  benchmarkRatio: OptionalField(
    Type.Number({ minimum: 0, maximum: 1, description: 'the likelihood (0 to 1) of a benchmark; 0 pauses' }),
  ),
  instructions: OptionalField(Type.String()),
  ocrLanguage: OptionalField(Type.String()),
  idleTimeout: OptionalField(Type.Number({ description: 'seconds' })),
  projectPlugins: OptionalField(FreeObject),
  pluginPresets: OptionalField(Type.Array(FreeObject)),
  errorCodesEnabled: OptionalField(Type.Boolean()),
  errorSchema: OptionalField(FreeObject),
  exportStorageId: OptionalField(Type.String()),
  exportStorageBucket: OptionalField(Type.String()),
  exportStoragePath: OptionalField(Type.String()),
  exportStorageEnabled: OptionalField(Type.Boolean()),
  taskSkipEnabled: OptionalField(Type.Boolean()),
  unassignSkippedTask: OptionalField(Type.Boolean()),
  gcSyncEnabled: OptionalField(Type.Boolean()),
  benchmarkCutoff: OptionalField(Type.Boolean()),
  benchmarkThreshold: OptionalField(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description:
        'an extension: the average benchmark score (0-100) below which benchmarkCutoff stops a labeler; default 70',
    }),
  ),
  tags: OptionalField(Type.Array(Type.String())),
  queueCountsEnabled: OptionalField(Type.Boolean()),
  segmentationOverlap: OptionalField(StringEnum(OVERLAP_RULES, { description: SEGMENTATION_OVERLAP })),
  patientTagsExported: OptionalField(Type.Boolean({ description: PATIENT_TAGS_EXPORTED })),
  assetBuilderTemplates: OptionalField(Type.Array(FreeObject)),
  pctConfig: OptionalField(PctConfig),
  deleted: OptionalField(Type.Boolean()),
  archived: OptionalField(
    Type.Boolean({
      description: 'an extension: true archives the project (hidden from lists asked with archived=false)',
    }),
  ),
});
export type ProjectUpdateRequest = Static<typeof ProjectUpdateRequest>;

/** The project as answered. `role` is present only on the single-project GET. */
export const Project = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  type: StringEnum(PROJECT_TYPES),
  owner: Type.Optional(Type.String({ description: 'owner e-mail' })),
  organization: Type.String(),
  categorySchema: CategorySchema,
  stages: Type.Array(Stage),
  assignedTo: Type.Array(Assignee),
  batches: Type.Array(Batch),
  queueVersion: Type.Optional(Type.Number()),
  assetCount: Type.Optional(Type.Integer()),
  benchmarkEnabled: Type.Optional(Type.Boolean()),
  benchmarkRatio: Type.Optional(Type.Number()),
  benchmarkCutoff: Type.Optional(Type.Boolean()),
  benchmarkThreshold: Type.Optional(Type.Number()),
  instructions: Type.Optional(Type.String({ description: 'instructions URL' })),
  ocrLanguage: Type.Optional(Type.String()),
  idleTimeout: Type.Optional(Type.Number({ description: 'seconds' })),
  projectPlugins: Type.Optional(FreeObject),
  pluginPresets: Type.Optional(Type.Array(FreeObject)),
  errorCodesEnabled: Type.Optional(Type.Boolean()),
  errorSchema: Type.Optional(FreeObject),
  exportStorageId: Type.Optional(Type.String()),
  exportStorageBucket: Type.Optional(Type.String()),
  exportStoragePath: Type.Optional(Type.String()),
  exportStorageEnabled: Type.Optional(Type.Boolean()),
  taskSkipEnabled: Type.Optional(Type.Boolean()),
  unassignSkippedTask: Type.Optional(Type.Boolean()),
  gcSyncEnabled: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Type.String())),
  queueCountsEnabled: Type.Optional(Type.Boolean()),
  segmentationOverlap: Type.Optional(StringEnum(OVERLAP_RULES, { description: SEGMENTATION_OVERLAP })),
  patientTagsExported: Type.Optional(Type.Boolean({ description: PATIENT_TAGS_EXPORTED })),
  assetBuilderTemplates: Type.Optional(Type.Array(FreeObject)),
  pctConfig: Type.Optional(PctConfig),
  role: Type.Optional(StringEnum(PROJECT_ROLES)),
  deleted: Type.Optional(Type.Boolean()),
  archived: Type.Optional(Type.Boolean({ description: 'an extension: the project was archived' })),
  archivedAt: Type.Optional(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type Project = Static<typeof Project>;

export const ProjectListItem = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  organization: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  archived: Type.Optional(Type.Boolean({ description: 'an extension: present (true) on archived projects' })),
  role: Type.Optional(StringEnum(PROJECT_ROLES, { description: 'with counts=true: the caller’s role on the project' })),
  progress: Type.Optional(
    Type.Object(
      {
        tasks: Type.Integer({ minimum: 0 }),
        completed: Type.Integer({ minimum: 0 }),
        archived: Type.Integer({ minimum: 0 }),
      },
      { description: 'with counts=true, for roles that may read every task: live tasks, completed and archived' },
    ),
  ),
});
export type ProjectListItem = Static<typeof ProjectListItem>;

export const ProjectListResponse = Success(
  Type.Object({ projects: Type.Array(ProjectListItem), total: Type.Integer({ minimum: 0 }) }),
);
export const ProjectResponse = Success(Type.Object({ project: Project }));
