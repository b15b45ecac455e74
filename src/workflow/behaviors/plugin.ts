import { PLUGIN_CALL_JOB } from '../../jobs/kinds.js';
import { leaveBy, queuesJobOnEntry, refuseExit } from '../stage-behavior.js';

/**
 * A task entering a Plugin stage waits there while one call is queued with the move. The plugin
 * moves it on by answering (POST /annotate?isPlugin=true&nextStage=true or POST /pluginResponse);
 * a failed call leaves it waiting with a warning until a re-run. Only the plugin's answer submits
 * it, by next[0].
 */
export const pluginBehavior = queuesJobOnEntry(PLUGIN_CALL_JOB, (stage, request) => {
  if (request.kind === 'submit' && request.byPlugin) return leaveBy(stage, 0, { trigger: 'plugin' });
  if (request.kind === 'submit')
    return { kind: 'refuse', reason: 'a task in a Plugin stage cannot be submitted without isPlugin=true' };
  return refuseExit(stage, request);
});
