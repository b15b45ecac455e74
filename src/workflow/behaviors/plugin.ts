import { queuesJobOnEntry, type StageEntryJob } from '../stage-behavior.js';

/** Job kind of a plugin call (declared in jobs/registry.ts, handled by services/plugins/plugin-call.ts). */
export const PLUGIN_CALL_JOB = 'plugin.call';

/**
 * What a queued plugin call remembers. The job id is the call's session (sent to the plugin, and
 * matched when it answers), stable across the attempts of one call.
 */
export type PluginCallJob = StageEntryJob;

/**
 * A task entering a Plugin stage waits there while one call is queued with the move. The plugin
 * moves it on by answering (POST /annotate?isPlugin=true&nextStage=true or POST /pluginResponse);
 * a failed call leaves it waiting with a warning until a re-run.
 */
export const pluginBehavior = queuesJobOnEntry(PLUGIN_CALL_JOB);
