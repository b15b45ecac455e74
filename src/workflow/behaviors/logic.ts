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
    });
    if (to === undefined) throw new AppError('CONFLICT', `Logic stage "${stage.id}" has no output`);
    return { kind: 'leave', to, trigger: 'logic', record: true };
  },
  exit: refuseExit,
};
