import { leaveBy, refuseExit, type StageBehavior, WAIT } from '../stage-behavior.js';

/**
 * Start forwards a task to `next[0]` at once unless `autoForward` is false. A task's pass
 * through Start at import is not a history entry (nothing happened to it there); a task
 * requeued into Start and forwarded again is, with trigger `auto`. A task waiting there (with
 * `autoForward` false) leaves by next[0] when forwarded.
 */
export const startBehavior: StageBehavior = {
  async enter(task, stage) {
    const to = stage.next?.[0];
    if (stage.autoForward === false || to === undefined) return WAIT;
    return { kind: 'leave', to, trigger: 'auto', record: !task.isNew };
  },
  exit(stage, request) {
    if (request.kind === 'forward') return leaveBy(stage, 0, { trigger: 'forward' });
    return refuseExit(stage, request);
  },
};
