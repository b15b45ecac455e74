/**
 * The durable job core: webhook deliveries, plugin calls and exports are queued with
 * `enqueueJob` inside the transaction that needs them, and run by `JobWorker`s under leases.
 */
export {
  DEFAULT_JOB_OPTIONS,
  JOB_KINDS,
  JOB_RECORDED,
  JobRegistry,
  retryDelayMs,
  silentLogger,
  type Job,
  type JobContext,
  type JobHandler,
  type JobKind,
  type JobKindDeclarations,
  type JobKindOptions,
  type JobLogger,
  type JobPayloads,
  type ResolvedJobKindOptions,
} from './registry.js';
export {
  countJobs,
  enqueueJob,
  findFailedJobs,
  getJob,
  insertJob,
  makeEnqueue,
  onJobsQueued,
  toJobInfo,
  unfinishedPayloads,
  type EnqueueJob,
  type EnqueueOptions,
  type JobCount,
  type JobInfo,
  type JobStatus,
} from './queue.js';
export { JobWorker, shortError, type JobWorkerOptions } from './worker.js';
export { PRUNE_BATCH, pruneDoneJobs, type RetentionOptions } from './retention.js';
export {
  claimJobs,
  completeJobs,
  finishJob,
  renewLeases,
  type Claim,
  type ClaimRequest,
  type ClaimedJob,
  type Outcome,
} from './claims.js';
export { MicroBatcher, type BatchRunner } from './micro-batcher.js';
