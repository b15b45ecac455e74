import { Type, type Static } from 'typebox';
import { CategorySchema } from './category-schema.js';
import { BrushFrames, FreeObject, Nullable } from './common.js';

/**
 * The body a Webhook stage sends (contract, Events). Differences from an export: `batches`
 * holds ids with names in `batchNames`, and `stageHistory` carries metadata, no label contents.
 */

export const AnnotationMetadata = Type.Object({
  createdAt: Type.Optional(Type.String({ format: 'date-time' })),
  createdBy: Type.Optional(Type.String()),
  createdIn: Type.Optional(Type.String()),
});

/** One object of `task.tools`: geometry under the tool kind's key, e.g. `bounding-box`. */
export const PayloadToolObject = Type.Object({
  objectId: Type.String(),
  schemaId: Type.String(),
  title: Type.String(),
  classifications: Type.Optional(Type.Array(FreeObject)),
  metadata: Type.Optional(AnnotationMetadata),
  'bounding-box': Type.Optional(
    Type.Object({ x: Type.Number(), y: Type.Number(), height: Type.Number(), width: Type.Number() }),
  ),
});
export type PayloadToolObject = Static<typeof PayloadToolObject>;

export const PayloadStageHistoryEntry = Type.Object({
  _id: Type.String(),
  stageId: Type.String(),
  duration: Type.Number({ description: 'milliseconds' }),
  idleDuration: Type.Number({ description: 'milliseconds' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
  taskHistory: Type.String({ description: 'task history entry id' }),
  completedBy: Nullable(Type.String()),
  submittedBy: Nullable(Type.String()),
  consensusId: Nullable(Type.String()),
  isSkipped: Type.Boolean(),
});
export type PayloadStageHistoryEntry = Static<typeof PayloadStageHistoryEntry>;

export const PayloadTask = Type.Object({
  type: Type.String(),
  taskId: Type.String(),
  stage: Type.String(),
  stageId: Type.String(),
  stageName: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
  updatedBy: Nullable(Type.String({ description: 'e-mail' })),
  duration: Type.Number(),
  idleDuration: Type.Number(),
  totalDuration: Type.Number(),
  totalIdleDuration: Type.Number(),
  tools: Type.Array(PayloadToolObject),
  classifications: Type.Array(FreeObject),
  relations: Type.Array(FreeObject),
  stageHistory: Type.Array(PayloadStageHistoryEntry),
  brushDataUrl: Nullable(Type.String()),
  brushFrames: Type.Optional(BrushFrames("a video's brush layer of each frame that has one, signed links")),
  medicalBrushDataUrl: Nullable(Type.String()),
});
export type PayloadTask = Static<typeof PayloadTask>;

export const WebhookPayload = Type.Object({
  projectId: Type.String(),
  categorySchema: CategorySchema,
  asset: Type.String({ description: 'asset URL' }),
  assetId: Type.String(),
  dataset: Type.Array(Type.Unknown()),
  overlay: Type.Array(Type.Unknown()),
  externalId: Type.String(),
  metadata: Type.Object({ width: Type.Optional(Type.Number()), height: Type.Optional(Type.Number()) }),
  batches: Type.Array(Type.String(), { description: 'batch ids' }),
  batchNames: Type.Array(Type.String()),
  task: PayloadTask,
});
export type WebhookPayload = Static<typeof WebhookPayload>;
