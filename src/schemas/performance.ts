import { Type } from 'typebox';

/** POST /performance/{projectId} (the [client]'s performance report). */
export const PerformanceParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });

const IsoDate = Type.String({ minLength: 10, maxLength: 40, description: 'ISO 8601 date or date-time' });

export const PerformanceRequest = Type.Object({
  interval: Type.Optional(
    Type.Array(IsoDate, {
      minItems: 2,
      maxItems: 2,
      description: '[from, to]: work done from `from` (inclusive) until `to` (exclusive); omitted = all time',
    }),
  ),
  batches: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      maxItems: 10_000,
      description: 'batch ids or names: only tasks whose asset is in any of them',
    }),
  ),
});

const Count = Type.Integer({ minimum: 0 });

export const PerformanceRow = Type.Object({
  user: Type.String({ description: 'e-mail of the person' }),
  stageId: Type.String(),
  stageName: Type.String(),
  stageType: Type.Union([Type.String(), Type.Null()]),
  submitted: Count,
  reviewed: Count,
  accepted: Count,
  rejected: Count,
  timeSpent: Type.Integer({ minimum: 0, description: 'ms, as reported with the work' }),
  issuesRaised: Count,
});

export const PerformanceResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    performance: Type.Array(PerformanceRow),
    benchmarks: Type.Array(
      Type.Object({
        user: Type.String({ description: 'e-mail of the labeler' }),
        benchmarks: Count,
        averageScore: Type.Number({ minimum: 0, maximum: 100, description: 'mean score of those submissions' }),
      }),
      { description: "each labeler's benchmark submissions in the interval and batches (an extension)" },
    ),
    interval: Type.Object({
      from: Type.Union([Type.String(), Type.Null()]),
      to: Type.Union([Type.String(), Type.Null()]),
    }),
    total: Count,
  }),
});
