import { AppError } from '../../errors.js';
import type { StageBehavior } from '../stage-behavior.js';

// Replaced by the Webhook stage's own issue; until then a task cannot enter such a stage.
export const webhookBehavior: StageBehavior = {
  async enter(_task, stage) {
    throw new AppError('CONFLICT', `Webhook stages are not available yet (stage "${stage.id}")`);
  },
};
