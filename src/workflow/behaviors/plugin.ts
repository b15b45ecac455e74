import { PLUGIN_CALL_JOB } from '../../jobs/kinds.js';
import { queuesJobOnEntry } from '../stage-behavior.js';

/**
 * A task entering a Plugin stage waits there while one call is queued with the move. The plugin
 * moves it on by answering (POST /annotate?isPlugin=true&nextStage=true or POST /pluginResponse);
 * a failed call leaves it waiting with a warning until a re-run.
 */
export const pluginBehavior = queuesJobOnEntry(PLUGIN_CALL_JOB);
