import { AppError } from '../../errors.js';
import type { StageBehavior } from '../stage-behavior.js';

// Replaced by the Plugin stage's own issue; until then a task cannot enter such a stage.
export const pluginBehavior: StageBehavior = {
  async enter(_task, stage) {
    throw new AppError('CONFLICT', `Plugin stages are not available yet (stage "${stage.id}")`);
  },
};
