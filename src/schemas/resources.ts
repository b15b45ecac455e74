import { Type, type TProperties } from 'typebox';
import { BrushFrames, FreeObject, KEEP_UNKNOWN, Nullable } from './common.js';

/**
 * Records the API answers that the contract leaves open (DECISIONS 4 and 6): tasks, their
 * history, assets, issues, plugins, members. They document the answers and, attached to the
 * routes, serialise them: every field a service answers is declared here, and stored documents
 * (answers, metadata, attachments) keep whatever they hold.
 */

const DateTime = Type.String({ format: 'date-time' });
const NullableDate = Nullable(Type.String({ format: 'date-time' }));

/** An annotation answer as stored: objects are free-form (tool geometry, nested classifications). */
export const TaskAnswer = Type.Object(
  {
    tools: Type.Optional(Type.Array(FreeObject)),
    objects: Type.Optional(Type.Array(FreeObject)),
    classifications: Type.Optional(Type.Array(FreeObject)),
    relations: Type.Optional(Type.Array(FreeObject)),
  },
  { ...KEEP_UNKNOWN, description: 'the annotation answer, kept as sent' },
);

const taskFields = {
  _id: Type.String(),
  project: Type.String(),
  asset: Type.Object({
    _id: Type.String(),
    externalId: Type.String(),
    data: Nullable(Type.String()),
    hasSize: Type.Optional(
      Type.Boolean({ description: "the asset's metadata holds its width and height (Annotary's extension)" }),
    ),
    dataset: Type.Optional(
      Type.Array(Type.String(), { description: 'an asset made of several images: their URLs in page order' }),
    ),
    pct: Type.Optional(
      Type.Unknown({
        description:
          "a point cloud's sensors and cameras with their calibration, as the asset's `metadata.pct` holds them (Annotary's extension)",
      }),
    ),
  }),
  externalId: Type.String(),
  stage: Type.String({ description: 'id of the stage the task is in' }),
  stageName: Type.String(),
  stageType: Nullable(Type.String()),
  status: Type.String({ description: 'TODO, Completed or Archived' }),
  assignee: Nullable(Type.String({ description: 'e-mail' })),
  batches: Type.Array(Type.String(), { description: 'batch ids' }),
  priority: Type.Number(),
  reviewStatus: Nullable(Type.String({ description: 'Accepted or Rejected once reviewed' })),
  duration: Type.Number({ description: 'ms spent in the current stage' }),
  totalDuration: Type.Number({ description: 'ms spent over all stages' }),
  openIssuesCount: Type.Integer(),
  isPreLabeled: Type.Boolean(),
  isDraft: Type.Optional(Type.Boolean({ description: 'an answer was saved in this stage without submitting it' })),
  type: Type.String({ description: 'default, consensus or benchmark' }),
  parentTask: Nullable(Type.String({ description: 'the task a consensus copy belongs to' })),
  consensusScore: Nullable(Type.Number()),
  brushDataUrl: Nullable(Type.String({ description: "the brush layer (a video's: frame 0's), a signed link" })),
  brushFrames: Type.Optional(BrushFrames("a video's brush layer of each frame that has one, signed links")),
  medicalBrushDataUrl: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
  updatedBy: Nullable(Type.String()),
  completedAt: NullableDate,
  completedBy: Nullable(Type.String()),
} satisfies TProperties;

/** The task record (DECISIONS 4); `answer` comes with the single-task reads and `includeAnswer`. */
export const Task = Type.Object({ ...taskFields, answer: Type.Optional(Type.Ref('TaskAnswer')) });

/** A task in a list: `fields` may keep only some properties (`_id` always stays). */
export const TaskListItem = Type.Partial(Task);

export const TaskHistoryEntry = Type.Object({
  _id: Type.String(),
  labelTask: Type.String({ description: 'the task id' }),
  project: Type.String(),
  asset: Type.String(),
  stageId: Type.String(),
  stageName: Nullable(Type.String()),
  stageType: Nullable(Type.String()),
  answer: Type.Ref('TaskAnswer'),
  duration: Type.Number(),
  completedAt: DateTime,
  completedBy: Nullable(Type.String()),
  reviewStatus: Nullable(Type.String()),
  isSkipped: Type.Boolean(),
  consensusId: Nullable(Type.String()),
  trigger: Nullable(Type.String({ description: 'what closed the stage: submit, review, plugin, requeue...' })),
});

export const Asset = Type.Object({
  _id: Type.String(),
  project: Type.String(),
  externalId: Type.String(),
  data: Type.String({ description: 'URL of the file' }),
  contextData: Type.Unknown({ description: 'kept as sent; null when none' }),
  metadata: FreeObject,
  dataset: Type.Optional(
    Type.Array(Type.String(), {
      description: 'an asset made of several images: their URLs in page order (left out for an asset of one file)',
    }),
  ),
  mediaWarning: Type.Optional(
    Nullable(
      Type.String({
        description:
          "what reading the file's header found wrong, in words (an extension; null when nothing): the size is then missing until the editor measures the image",
      }),
    ),
  ),
  storage: Nullable(Type.String({ description: 'storage id the file lives in' })),
  attachments: Type.Array(FreeObject, { description: '{type: IMAGE | VIDEO | TEXT, value}' }),
  batches: Type.Array(Type.String(), { description: 'batch ids' }),
  taskId: Nullable(Type.String()),
  isPreLabeled: Type.Boolean(),
  createdAt: DateTime,
  createdBy: Nullable(Type.String()),
});

export const IssueComment = Type.Object({
  _id: Type.String(),
  content: Type.String(),
  createdBy: Type.String(),
  createdAt: DateTime,
});

export const Issue = Type.Object({
  _id: Type.String(),
  project: Type.String(),
  labelTask: Type.String(),
  asset: Type.String(),
  stage: Type.String(),
  content: Type.String(),
  position: Nullable(Type.String()),
  page: Nullable(Type.Integer()),
  objectId: Nullable(Type.String()),
  errorCodes: Type.Array(Type.Union([Type.String(), FreeObject]), {
    description: "codes of the project's errorSchema",
  }),
  status: Type.String({ description: 'Open or Resolved' }),
  pctDetails: Nullable(FreeObject),
  comments: Type.Array(Type.Ref('IssueComment')),
  createdBy: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  deleted: Type.Optional(Type.Boolean({ description: 'only on the answer of a DELETE' })),
});

export const Plugin = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  assistUrl: Type.Optional(
    Type.String({ description: "where the editor's Assist requests go: set only on a plugin that answers them" }),
  ),
  organization: Type.String(),
  createdBy: Type.String(),
  createdAt: DateTime,
  deleted: Type.Optional(Type.Boolean({ description: 'only on the answer of a DELETE' })),
});

export const PluginLogEntry = Type.Object({
  _id: Type.String(),
  session: Type.String(),
  project: Type.String(),
  stageId: Type.String(),
  taskId: Type.String(),
  source: Type.String({ description: 'annotary (the call) or plugin (its lines)' }),
  message: Type.String(),
  createdAt: DateTime,
});

export const OrganizationUser = Type.Object({
  _id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  organizationRole: Type.String({ description: 'owner, admin or member' }),
  createdAt: DateTime,
});

export const Invite = Type.Object({
  _id: Type.String(),
  email: Type.String(),
  organizationRole: Type.String(),
  projectAssignments: Type.Array(Type.Object({ projectId: Type.String(), projectRole: Type.String() })),
  createdBy: Type.String(),
  createdAt: DateTime,
});
