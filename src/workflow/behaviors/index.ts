import type { StageType } from '../../schemas/stage.js';
import type { StageBehavior } from '../stage-behavior.js';
import { consensusBehavior } from './consensus.js';
import { holdBehavior, labelBehavior, reviewBehavior, terminalBehavior } from './human.js';
import { logicBehavior } from './logic.js';
import { pluginBehavior } from './plugin.js';
import { startBehavior } from './start.js';
import { webhookBehavior } from './webhook.js';

/** One behaviour per stage type: adding a type without its behaviour does not compile. */
export const BEHAVIORS: Record<StageType, StageBehavior> = {
  Start: startBehavior,
  Label: labelBehavior,
  Review: reviewBehavior,
  Hold: holdBehavior,
  Complete: terminalBehavior,
  Archive: terminalBehavior,
  Logic: logicBehavior,
  Webhook: webhookBehavior,
  Plugin: pluginBehavior,
  Consensus: consensusBehavior,
};
