import { afterAll, beforeAll, expect } from 'vitest';
import { buildJobRegistry } from '../../src/job-handlers.js';
import { JobWorker } from '../../src/jobs/worker.js';
import type { Engine } from '../../src/store/db.js';
import { makeTestApp, type TestApp } from './app.js';
import { waitFor } from './wait.js';
import { type Receiver, startReceiver } from './webhook-receiver.js';

/** Shared steps of the webhook tests: a project with a Webhook stage, its tasks, a worker. */

export const HOOK_ENV = { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_JOB_RETRY_BASE_MS: '20' };

export interface HookSettings {
  url: string;
  method?: 'POST' | 'PUT';
  authType?: 'no_auth' | 'secret' | 'bearer_token';
  secret?: string;
  token?: string;
  timeout?: number;
  retryCount?: number;
}

/** Start -> Hook (Webhook) -> Complete. */
export function hookWorkflow(webhook: HookSettings) {
  return [
    { id: 'Start', type: 'Start', name: 'Start', next: ['Hook'] },
    { id: 'Hook', type: 'Webhook', name: 'Notify us', next: ['Complete'], webhook },
    { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
  ];
}

export async function createProject(t: TestApp, stages: unknown[], categorySchema?: unknown): Promise<string> {
  const created = await t.call('POST', '/v2/project', { body: { name: 'Hooks' } });
  const id = created.json().data.project._id as string;
  const res = await t.call('POST', `/v2/project/${id}`, {
    body: { stages, ...(categorySchema ? { categorySchema } : {}) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

/** Imports assets; answers their task ids in order. */
export async function importAssets(
  t: TestApp,
  projectId: string,
  assets: Record<string, unknown>[],
): Promise<string[]> {
  const res = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json().data.assets as { taskId: string }[]).map((a) => a.taskId);
}

export async function taskOf(t: TestApp, taskId: string): Promise<Record<string, unknown>> {
  const res = await t.call('GET', `/v2/task/${taskId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.task as Record<string, unknown>;
}

export async function waitForStage(t: TestApp, taskId: string, stage: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(
    async () => (await taskOf(t, taskId)).stage === stage,
    `task ${taskId} to reach ${stage}`,
    timeoutMs,
    20,
  );
}

export async function logsOf(t: TestApp, projectId: string, query = '') {
  const res = await t.call('GET', `/v2/project/${projectId}/webhookLogs?limit=100${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as {
    logs: {
      line: string;
      status: number | null;
      error: string | null;
      deliveryId: string;
      attempt: number;
      taskId: string;
      stageId: string;
    }[];
    total: number;
  };
}

export async function stageStatus(t: TestApp, projectId: string, stageId: string) {
  const res = await t.call('GET', `/v2/project/${projectId}/stages`);
  expect(res.statusCode, res.body).toBe(200);
  const stages = res.json().data.stages as { id: string; taskCount: number; warnings: Record<string, unknown>[] }[];
  const stage = stages.find((s) => s.id === stageId);
  if (!stage) throw new Error(`no stage ${stageId} in the status`);
  return stage;
}

/** Deliveries of no job left queued or running. */
export async function queueDrained(t: TestApp): Promise<boolean> {
  const left = await t.store.db
    .selectFrom('jobs')
    .select('id')
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return left === undefined;
}

/** The application's worker, polling fast; stop it in the test's cleanup. */
export function startDeliveryWorker(t: TestApp): JobWorker {
  const worker = new JobWorker({
    store: t.store,
    registry: buildJobRegistry(t.ctx),
    clock: t.ctx.clock,
    pollIntervalMs: 20,
    concurrency: 8,
  });
  worker.start();
  return worker;
}

export interface HookRig {
  t: TestApp;
  worker: JobWorker;
  receiver: Receiver;
}

/**
 * A describe block's app on `engine` (HOOK_ENV), its delivery worker and a receiver: started
 * before its tests, stopped after them. Read the fields inside the tests.
 */
export function hookRig(engine: Engine): HookRig {
  const rig = {} as HookRig;
  beforeAll(async () => {
    rig.t = await makeTestApp(engine, { env: HOOK_ENV });
    rig.worker = startDeliveryWorker(rig.t);
    rig.receiver = await startReceiver();
  });
  afterAll(async () => {
    await rig.worker?.stop();
    await rig.receiver?.close();
    await rig.t?.close();
  });
  return rig;
}
