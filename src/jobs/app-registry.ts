import type { AppContext } from '../context.js';
import { JOB_KINDS, JobRegistry, type JobPayloads } from './registry.js';

/**
 * The application's registry: one handler per declared kind. A worker built on it refuses to
 * start while a declared kind lacks its handler.
 */
export function buildJobRegistry(ctx: AppContext): JobRegistry<JobPayloads> {
  const registry = new JobRegistry(JOB_KINDS, { backoffBaseMs: ctx.config.jobRetryBaseMs });
  return registry;
}
