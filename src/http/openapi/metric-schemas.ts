import { Type } from 'typebox';
import { Nullable } from '../../schemas/common.js';

/** The answers of `GET /{projectId}/overview/{metric}`, one property per metric (docs/exports-and-metrics.md). */

const StageRef = { stageId: Type.String(), stageName: Type.String(), type: Nullable(Type.String()) };
const Durations = {
  count: Type.Integer(),
  average: Nullable(Type.Number({ description: 'ms' })),
  median: Nullable(Type.Number({ description: 'ms' })),
  p90: Nullable(Type.Number({ description: 'ms' })),
};

export const METRIC_DATA = Type.Object(
  {
    LabelStageGroups: Type.Optional(Type.Array(Type.Object({ ...StageRef, count: Type.Integer() }))),
    TimePerTask: Type.Optional(
      Type.Object({ ...Durations, stages: Type.Array(Type.Object({ ...StageRef, ...Durations })) }),
    ),
    AnnotationStatus: Type.Optional(
      Type.Object({ TODO: Type.Integer(), Completed: Type.Integer(), Archived: Type.Integer() }),
    ),
    AnswerDistribution: Type.Optional(
      Type.Object({
        classifications: Type.Array(
          Type.Object({
            schemaId: Type.String(),
            title: Nullable(Type.String()),
            total: Type.Integer(),
            distinctValues: Type.Integer(),
            answers: Type.Array(
              Type.Object({ value: Type.String(), count: Type.Integer(), label: Type.Optional(Type.String()) }),
            ),
          }),
        ),
        tools: Type.Array(
          Type.Object({
            schemaId: Type.String(),
            title: Nullable(Type.String()),
            tool: Nullable(Type.String()),
            count: Type.Integer(),
          }),
        ),
      }),
    ),
    ConsensusRanges: Type.Optional(
      Type.Array(Type.Object({ from: Type.Integer(), to: Type.Integer(), count: Type.Integer() })),
    ),
    AssetSize: Type.Optional(
      Type.Object({
        sizes: Type.Array(Type.Object({ width: Type.String(), height: Type.String(), count: Type.Integer() })),
        fileTypes: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
      }),
    ),
  },
  { minProperties: 1, maxProperties: 1 },
);
