import { leaveBy, refuseExit, type StageBehavior, WAIT } from '../stage-behavior.js';

/**
 * Label and Review wait for a person; Hold waits to be forwarded. Their exits: a Label task is
 * submitted by next[0] (or skipped, staying put); a Review task leaves by next[0] when accepted
 * (a submit is an acceptance) and by next[1] when rejected; a Hold task is forwarded by next[0],
 * a submit there counting as a forward.
 */
export const labelBehavior: StageBehavior = {
  enter: async () => WAIT,
  exit(stage, request) {
    if (request.kind === 'submit') return leaveBy(stage, 0, { trigger: 'submit' });
    if (request.kind === 'skip') return { kind: 'stay', record: { trigger: 'skip', isSkipped: true } };
    return refuseExit(stage, request);
  },
};
export const reviewBehavior: StageBehavior = {
  async enter(task) {
    // A fresh review starts undecided; the decision is recorded on the exit.
    task.row.review_status = null;
    return WAIT;
  },
  exit(stage, request) {
    if (request.kind === 'submit') return leaveBy(stage, 0, { trigger: 'review', reviewStatus: 'Accepted' });
    if (request.kind === 'review') {
      const accepted = request.decision === 'Accepted';
      return leaveBy(stage, accepted ? 0 : 1, { trigger: 'review', reviewStatus: request.decision });
    }
    return refuseExit(stage, request);
  },
};
export const holdBehavior: StageBehavior = {
  enter: async () => WAIT,
  exit(stage, request) {
    if (request.kind === 'submit' || request.kind === 'forward') return leaveBy(stage, 0, { trigger: 'forward' });
    return refuseExit(stage, request);
  },
};

/** Complete and Archive are terminal: the engine already set the status and completion; nothing leaves them but a requeue. */
export const terminalBehavior: StageBehavior = { enter: async () => WAIT, exit: refuseExit };
