import { Type, type Static } from 'typebox';
import { QueryBoolean, StringEnum } from './common.js';

/**
 * Query of `GET /export` and `GET /exportV3` (DECISIONS sections 7 and 10). Properties not named
 * here are accepted and ignored. `type` is a free string because the Python client sends
 * `type=None` when it has no type; the service reads it.
 */
export const ExportQuery = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64, description: 'project id' }),
  format: Type.Optional(
    StringEnum(['json', 'ndjson', 'coco', 'yolo', 'voc', 'masks', 'cvat', 'kitti'] as const, {
      default: 'json',
      description:
        'json or ndjson (the task items); coco, yolo, voc, masks or cvat: a dataset zip of the task answers (type task only); kitti: KITTI label files per lidar frame (pct projects only)',
    }),
  ),
  type: Type.Optional(Type.String({ maxLength: 16, description: 'task (default) or issue' })),
  stage: Type.Optional(
    Type.String({ maxLength: 100_000, description: 'JSON list of stage ids or names; omitted = every stage' }),
  ),
  batches: Type.Optional(Type.String({ maxLength: 100_000, description: 'JSON list of batch ids or names' })),
  status: Type.Optional(
    Type.String({ maxLength: 16, description: 'tasks: TODO, Completed, Archived; issues: Open, Resolved' }),
  ),
  createdAt: Type.Optional(Type.String({ maxLength: 200, description: 'JSON {"$gt": ISO date, "$lt": ISO date}' })),
  updatedAt: Type.Optional(Type.String({ maxLength: 200, description: 'JSON {"$gt": ISO date, "$lt": ISO date}' })),
  includeMetadata: Type.Optional(QueryBoolean),
  includeHistory: Type.Optional(QueryBoolean),
  includeSegmentationPoints: Type.Optional(QueryBoolean),
  includeMask: Type.Optional(QueryBoolean),
  sendEmail: Type.Optional(Type.String({ maxLength: 16, description: 'accepted and ignored' })),
  doNotNotify: Type.Optional(Type.String({ maxLength: 16, description: 'accepted and ignored' })),
  taskTypes: Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'JSON list of default, consensus, benchmark: the kinds of task exported (default: ["default"])',
    }),
  ),
  includeOnlyKeyFrames: Type.Optional(
    Type.String({
      maxLength: 16,
      description:
        '`true`: video answers as stored (keyframes and stop entries); otherwise every track is expanded to every frame it is shown on',
    }),
  ),
  includeIdleBlurDurations: Type.Optional(Type.String({ maxLength: 16, description: 'accepted and ignored' })),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** The signed download path: `/exports/{expires}/{signature}/{file}`. */
export const ExportDownloadParams = Type.Object({
  expires: Type.String({ maxLength: 16 }),
  signature: Type.String({ maxLength: 128 }),
  file: Type.String({ maxLength: 128 }),
});
export type ExportDownloadParams = Static<typeof ExportDownloadParams>;

/** One export of a project's history (GET /project/{id}/exports, an extension). */
export const ExportRecord = Type.Object({
  _id: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  createdBy: Type.String({ description: 'e-mail of who asked for it' }),
  type: Type.String({ description: 'task or issue' }),
  format: StringEnum(['json', 'ndjson', 'coco', 'yolo', 'voc', 'masks', 'cvat', 'kitti'] as const),
  filters: Type.Record(Type.String(), Type.String(), {
    description: 'the narrowing parameters as sent: stage, batches, status, createdAt, updatedAt, include*, taskTypes',
  }),
  bytes: Type.Integer({ minimum: 0, description: 'size of the zip' }),
  ms: Type.Integer({ minimum: 0, description: 'how long it took' }),
  storage: Type.Boolean({ description: 'the zip went to the project’s export storage' }),
  exportPath: Type.Union([Type.String(), Type.Null()], {
    description: 'a link to the zip while there is one (a local zip: until expiresAt)',
  }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'when a local zip’s link stops working; null for the storage’s links, signed afresh',
  }),
});

export const OverviewParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  metric: Type.String({ maxLength: 64 }),
});
