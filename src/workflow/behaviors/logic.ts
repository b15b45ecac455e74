import { AppError } from '../../errors.js';
import { evaluateLogic } from '../logic.js';
import { refuseExit, type StageBehavior } from '../stage-behavior.js';
import type { TaskAnswer } from '../types.js';

/** Logic routes the task at once: the first condition that holds picks the output. No task rests there to leave. */
export const logicBehavior: StageBehavior = {
  async enter(task, stage, env) {
    const to = await evaluateLogic(stage, {
      taskId: task.row.id,
      externalId: task.row.external_id,
      answer: JSON.parse(task.row.answer) as TaskAnswer,
      facts: env.facts(task),
      random: env.random,
      brushClasses: async () => {
        const brushes = (env.project.categorySchema.tools ?? []).filter((t) => t.tool === 'brush');
        if (!brushes.length || !task.row.brush_data_url) return new Set();
        const layer = await env.readBrush(task.row.brush_data_url);
        if (!layer) return new Set();
        const seen = new Uint8Array(256);
        for (const v of layer.data) seen[v] = 1;
        // Class k is the k-th brush tool of the ontology (consensus/similarity.ts, BrushClasses).
        return new Set(brushes.filter((_, k) => seen[k + 1] === 1).map((t) => t.schemaId));
      },
    });
    if (to === undefined) throw new AppError('CONFLICT', `Logic stage "${stage.id}" has no output`);
    return { kind: 'leave', to, trigger: 'logic', record: true };
  },
  exit: refuseExit,
};
