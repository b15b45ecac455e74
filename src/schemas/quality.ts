import { Type } from 'typebox';
import { PerformanceRequest } from './performance.js';

/** POST /project/{id}/quality (an extension): the filters of the performance report. */
export const QualityRequest = PerformanceRequest;

const Count = Type.Integer({ minimum: 0 });
const Day = Type.String({ description: 'UTC day, YYYY-MM-DD' });
const Rate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description: 'rejected / (accepted + rejected); null without reviews',
});
const Score = Type.Number({ minimum: 0, maximum: 100 });

export const QualityResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    interval: Type.Object({
      from: Type.Union([Type.String(), Type.Null()]),
      to: Type.Union([Type.String(), Type.Null()]),
    }),
    benchmarks: Type.Array(
      Type.Object({
        labeler: Type.String({ description: 'e-mail of the labeler' }),
        benchmarks: Count,
        averageScore: Score,
        days: Type.Array(Type.Object({ day: Day, benchmarks: Count, averageScore: Score })),
      }),
      { description: "each labeler's benchmark submissions: the average and one entry per day" },
    ),
    agreement: Type.Array(
      Type.Object({
        schemaId: Type.String(),
        title: Type.String({ description: "the ontology item's title (its schemaId when since removed)" }),
        tool: Type.Union([Type.String(), Type.Null()], { description: 'tool or question kind' }),
        kind: Type.Union([Type.Literal('object'), Type.Literal('classification')]),
        measure: Type.Union([Type.Literal('iou'), Type.Literal('dice'), Type.Literal('kappa')]),
        value: Type.Union([Type.Number({ minimum: -1, maximum: 1 }), Type.Null()], {
          description:
            "objects: mean IoU of the copies (0 to 1), Dice of the voxels for a medical-brush class; questions: Cohen's kappa (-1 to 1)",
        }),
        observed: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
          description: 'objects: as value; questions: share of copy pairs giving the same answer',
        }),
        measures: Type.Integer({
          minimum: 0,
          description: 'objects: consensus rounds measured; questions: pairs of copies compared',
        }),
      }),
      { description: 'consensus agreement per ontology item, over the rounds decided in the interval' },
    ),
    reviews: Type.Object({
      accepted: Count,
      rejected: Count,
      rejectionRate: Rate,
      reviewers: Type.Array(
        Type.Object({ reviewer: Type.String(), accepted: Count, rejected: Count, rejectionRate: Rate }),
      ),
      days: Type.Array(Type.Object({ day: Day, accepted: Count, rejected: Count, rejectionRate: Rate })),
    }),
    errorCodes: Type.Object({
      enabled: Type.Boolean({ description: "the project's errorCodesEnabled" }),
      codes: Type.Array(
        Type.Object({
          code: Type.String(),
          declared: Type.Boolean({ description: "the code is in the project's errorSchema today" }),
          issues: Count,
        }),
      ),
      withoutCode: Type.Integer({ minimum: 0, description: 'issues carrying no error code' }),
    }),
  }),
});
