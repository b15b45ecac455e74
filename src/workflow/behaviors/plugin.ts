import { type StageBehavior, WAIT } from '../stage-behavior.js';

/** Job kind of a plugin call (declared in jobs/registry.ts, handled by services/plugin-call.ts). */
export const PLUGIN_CALL_JOB = 'plugin.call';

/**
 * What a queued plugin call remembers. The job id is the call's session (sent to the plugin, and
 * matched when it answers), stable across the attempts of one call. `enteredAt` is the task's
 * stage_entered_at: a task that left the stage, or left and came back (which queued a call of
 * its own), no longer matches and this call is dropped. No URL or secret here: the handler
 * reads the plugin's current registration when it sends.
 */
export interface PluginCallJob {
  projectId: string;
  taskId: string;
  stageId: string;
  enteredAt: string;
}

/**
 * A task entering a Plugin stage waits there while one call is queued, in the same transaction
 * as the move. The plugin moves it on by answering (POST /annotate?isPlugin=true&nextStage=true
 * or POST /pluginResponse); a failed call leaves it waiting with a warning until a re-run.
 */
export const pluginBehavior: StageBehavior = {
  async enter(task, stage, env) {
    const payload: PluginCallJob = {
      projectId: task.row.project_id,
      taskId: task.row.id,
      stageId: stage.id,
      enteredAt: task.row.stage_entered_at,
    };
    env.effects.jobs.push({ id: env.newId(), kind: PLUGIN_CALL_JOB, payload });
    return WAIT;
  },
};
