import { Type } from 'typebox';
import { BrushFrames, PaginationQuery, QueryBoolean, StringEnum } from './common.js';

export const TaskIdParams = Type.Object({ taskId: Type.String({ maxLength: 64 }) });
export const MaskQuery = Type.Object({
  annotation: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'objectId of a segmentation or polygon object',
  }),
  task: Type.String({ maxLength: 64, description: 'the task holding the object' }),
  expires: Type.Optional(
    Type.String({ maxLength: 16, description: 'with signature: a key-less link of an export (Unix seconds)' }),
  ),
  signature: Type.Optional(
    Type.String({ maxLength: 128, description: 'with expires: the signature of a key-less link of an export' }),
  ),
});
export const HistoryIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const ListTasksQuery = Type.Intersect([
  PaginationQuery(1000),
  Type.Object({
    'status[eq]': Type.Optional(StringEnum(['Completed', 'TODO', 'Archived'] as const)),
    batches: Type.Optional(Type.String({ maxLength: 100_000, description: 'batch id, or a JSON array of ids' })),
    stage: Type.Optional(Type.String({ maxLength: 100_000, description: 'stage id, or a JSON array of ids' })),
    filter: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'JSON filter, see docs/api.md' })),
    sort: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'createdAt, updatedAt, priority, externalId, status, stage, completedAt; - for descending; up to 4 comma-separated (-createdAt,priority)',
      }),
    ),
    fields: Type.Optional(Type.String({ maxLength: 2000, description: 'comma-separated fields to return' })),
    includeAnswer: Type.Optional(QueryBoolean),
  }),
]);

const AnswerObjects = Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 100_000 });

export const Answer = Type.Object({
  tools: Type.Optional(AnswerObjects),
  objects: Type.Optional(AnswerObjects),
  classifications: Type.Optional(AnswerObjects),
  relations: Type.Optional(AnswerObjects),
  pointLabels: Type.Optional(
    Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      maxItems: 100_000,
      description:
        "point-cloud segmentation: `[{page, classes: [schemaId, ...], runs: [count, classIndex, ...]}]`, a run-length code over the frame's points in file order (class index 0 = unlabelled)",
    }),
  ),
});

export const AnnotateRequest = Type.Object({
  answer: Type.Optional(Answer),
  brushDataUrl: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'link to the brush layer, a PNG of the image\'s size: from POST /task/{taskId}/brush (or the file store or a storage of the organization); "" removes the layer. On a video, frame 0\'s layer',
    }),
  ),
  brushFrames: Type.Optional(
    BrushFrames(
      'a video\'s layers of the frames named, each checked as `brushDataUrl` ("" removes the frame\'s layer); frames not named keep theirs',
    ),
  ),
  medicalBrushDataUrl: Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'link to the voxel layer, a .seg.nrrd of the volume\'s size: from POST /task/{taskId}/medical-brush (or the file store or a storage of the organization); "" removes the layer',
    }),
  ),
  duration: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 * 1000, description: 'ms spent on this submission' }),
  ),
});

export const AnnotateQuery = Type.Object({
  nextStage: Type.Optional(QueryBoolean),
  isPlugin: Type.Optional(QueryBoolean),
});

export const ReviewRequest = Type.Object({ reviewStatus: StringEnum(['Accepted', 'Rejected'] as const) });

const Ids = Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 200_000 });

export const TaskSelection = Type.Object({
  taskIds: Type.Optional(Ids),
  externalIds: Type.Optional(Ids),
  assetIds: Type.Optional(Ids),
  batches: Type.Optional(Ids),
  fromStageIds: Type.Optional(Ids),
});

export const ForwardRequest = Type.Object({
  stageId: Type.String({ minLength: 1, maxLength: 200 }),
  batches: Type.Optional(Ids),
  taskIds: Type.Optional(Ids),
});

export const NextQuery = Type.Object({ stageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });

/** One stage of GET /project/{id}/queue: a Label or Review stage the caller may take tasks from. */
export const QueueStage = Type.Object({
  stageId: Type.String(),
  stageName: Type.String(),
  stageType: Type.Union([Type.Literal('Label'), Type.Literal('Review')]),
  waiting: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      'tasks /next could hand you in this stage now (free, not assigned to anyone), at most 1000 (see ' +
      '`waitingCapped`); null for a Labeler when the project has `queueCountsEnabled` off',
  }),
  waitingCapped: Type.Boolean({ description: 'more than `waiting` tasks wait: the count stops at 1000' }),
  assignedToYou: Type.Integer({ minimum: 0, description: 'tasks of this stage assigned to you' }),
});

/** POST /task/{taskId}/release: optionally only while the task is unchanged since `updatedAt`. */
export const ReleaseRequest = Type.Object({
  updatedAt: Type.Optional(
    Type.String({
      minLength: 10,
      maxLength: 40,
      description:
        "the task's `updatedAt` as you read it: released only while it is unchanged since then (409 otherwise)",
    }),
  ),
});

export const PositionQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      minLength: 10,
      maxLength: 40,
      description: 'ISO 8601 date-time: `done` counts what you finished in the stage from then on (0 without it)',
    }),
  ),
});

/** GET /task/{taskId}/position: where the caller stands in the task's stage ("Task 3 of 12"). */
export const QueuePosition = Type.Object({
  stageId: Type.String(),
  stageName: Type.String(),
  position: Type.Integer({ minimum: 1, description: '`done` + 1: the number of this task in your work since `since`' }),
  total: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: '`position` + `held` + `waiting`; null when `waiting` is',
  }),
  done: Type.Integer({
    minimum: 0,
    description: 'tasks you finished in this stage since `since` (submits, accepts, rejects, skips), at most 1000',
  }),
  held: Type.Integer({ minimum: 0, description: 'the other tasks of this stage assigned to you, at most 1000' }),
  waiting: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      'the free tasks /next could hand you in this stage, at most 1000; null for a Labeler when the project ' +
      'has `queueCountsEnabled` off',
  }),
  capped: Type.Boolean({ description: 'a count stopped at 1000: there are more' }),
});

export const AssignRequest = Type.Object({
  project: Type.String({ maxLength: 64 }),
  tasks: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100_000 }),
  stage: Type.String({ minLength: 1, maxLength: 200 }),
  user: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
});

export const RequeueRequest = Type.Object({
  toStageId: Type.String({ minLength: 1, maxLength: 200 }),
  filters: Type.Optional(TaskSelection),
  options: Type.Optional(
    Type.Object({
      removeAnnotations: Type.Optional(Type.Boolean()),
      removeAssignee: Type.Optional(Type.Boolean()),
      removeStageHistory: Type.Optional(Type.Boolean()),
    }),
  ),
});

export const UpdatePriorityRequest = Type.Object({
  filters: Type.Optional(TaskSelection),
  priority: Type.Integer({ minimum: -1000, maximum: 1000 }),
});
