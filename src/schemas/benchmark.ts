import { Type } from 'typebox';
import { StringEnum } from './common.js';
import { Answer } from './task.js';

/** The most tasks one mark or unmark request names. */
export const BENCHMARK_BULK_MAX = 1000;

const TaskIds = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: BENCHMARK_BULK_MAX });

export const MarkBenchmarksRequest = Type.Object({
  tasks: TaskIds,
  /** Where each reference comes from; `given` needs `answer` (the default when it is sent). */
  source: Type.Optional(StringEnum(['answer', 'given', 'prelabels'] as const)),
  answer: Type.Optional(Answer),
});

export const UnmarkBenchmarksRequest = Type.Object({ tasks: TaskIds });

export const BenchmarkTaskParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  taskId: Type.String({ maxLength: 64 }),
});

export const ResumeLabelerRequest = Type.Object({ labeler: Type.String({ minLength: 3, maxLength: 320 }) });

export const SubmissionsQuery = Type.Object({ labeler: Type.Optional(Type.String({ maxLength: 320 })) });
