import { type StageBehavior, WAIT } from '../stage-behavior.js';

/** Label and Review wait for a person; Hold waits to be forwarded. */
export const labelBehavior: StageBehavior = { enter: async () => WAIT };
export const reviewBehavior: StageBehavior = {
  async enter(task) {
    // A fresh review starts undecided; the decision is recorded on the exit.
    task.row.review_status = null;
    return WAIT;
  },
};
export const holdBehavior: StageBehavior = { enter: async () => WAIT };

/** Complete and Archive are terminal: the engine already set the status and completion. */
export const terminalBehavior: StageBehavior = { enter: async () => WAIT };
