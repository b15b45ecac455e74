import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import {
  createProject,
  HOOK_ENV,
  type HookSettings,
  hookWorkflow,
  importAssets,
  logsOf,
  queueDrained,
  stageStatus,
  startDeliveryWorker,
  taskOf,
  waitForStage,
} from '../helpers/webhooks.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Every way into a Webhook stage queues a delivery (import, submit through Logic, requeue,
 * re-run); a delivery whose task left is dropped; re-run, the log and the stage status.
 */
describe.each(ENGINES)('webhook stage operations on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker | undefined;
  let r: Receiver;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: HOOK_ENV });
    r = await startReceiver({ secret: 'op-secret-value' });
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    r.respond(() => ({ status: 200 }));
  });
  afterAll(async () => {
    await r.close();
    await t.close();
  });
  const hook = (extra: Partial<HookSettings> = {}): HookSettings => ({
    url: r.url,
    authType: 'secret',
    secret: 'op-secret-value',
    ...extra,
  });
  const forTask = (taskId: string) =>
    r.received.filter((x) => (x.body?.task as { taskId?: string })?.taskId === taskId);

  it('queues a delivery when a submitted task reaches the stage through Logic, and when requeued into it', async () => {
    worker = startDeliveryWorker(t);
    const id = await createProject(t, [
      { id: 'Start', type: 'Start', next: ['Label'] },
      { id: 'Label', type: 'Label', next: ['Route'] },
      { id: 'Route', type: 'Logic', next: ['Hook'], logic: { type: 'Annotator', conditions: [] } },
      { id: 'Hook', type: 'Webhook', next: ['Complete'], webhook: hook() },
      { id: 'Complete', type: 'Complete', next: [] },
    ]);
    const [taskId] = (await importAssets(t, id, [{ data: 'https://cdn.example.com/p.jpg' }])) as [string];
    expect(forTask(taskId)).toEqual([]);
    const submit = await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, { body: { answer: {} } });
    expect(submit.statusCode, submit.body).toBe(200);
    await waitForStage(t, taskId, 'Complete');
    const history = (await t.call('GET', `/v2/task/${taskId}/history`)).json().data.taskHistory;
    expect(history.map((h: { stageId: string; trigger: string }) => [h.stageId, h.trigger])).toEqual([
      ['Label', 'submit'],
      ['Route', 'logic'],
      ['Hook', 'webhook'],
    ]);
    // The stage history sent is metadata only: no label contents.
    const sent = forTask(taskId)[0]?.body as { task: { stageHistory: Record<string, unknown>[] } };
    expect(sent.task.stageHistory.map((h) => h.stageId)).toEqual(['Label', 'Route']);
    expect(sent.task.stageHistory[0]).toMatchObject({ submittedBy: 'admin@annotary.local', isSkipped: false });
    expect(Object.keys(sent.task.stageHistory[0] ?? {})).not.toContain('answer');

    const requeue = await t.call('POST', `/v2/project/${id}/requeueTasks`, {
      body: { toStageId: 'Hook', filters: { taskIds: [taskId] } },
    });
    expect(requeue.statusCode, requeue.body).toBe(200);
    await waitFor(() => forTask(taskId).length === 2, 'the second delivery');
    await waitForStage(t, taskId, 'Complete');
    const [first, second] = forTask(taskId);
    expect(first?.deliveryId).not.toBe(second?.deliveryId);
  });

  it('drops a delivery whose task left the stage before it was sent, and logs it', async () => {
    const id = await createProject(t, [
      { id: 'Start', type: 'Start', next: ['Hook'] },
      { id: 'Hook', type: 'Webhook', next: ['Complete'], webhook: hook() },
      { id: 'Hold', type: 'Hold', next: ['Complete'] },
      { id: 'Complete', type: 'Complete', next: [] },
    ]);
    // No worker yet: the import's delivery waits in the queue while the task is moved away.
    const [taskId] = (await importAssets(t, id, [{ data: 'https://cdn.example.com/q.jpg', externalId: 'q' }])) as [
      string,
    ];
    const away = await t.call('POST', `/v2/project/${id}/requeueTasks`, { body: { toStageId: 'Hold' } });
    expect(away.statusCode).toBe(200);
    worker = startDeliveryWorker(t);
    await waitFor(() => queueDrained(t), 'the queue to drain');
    expect(forTask(taskId)).toEqual([]);
    expect((await taskOf(t, taskId)).stage).toBe('Hold');
    const { logs } = await logsOf(t, id);
    expect(logs.map((l) => l.line.replace(/^\[[^\]]+\]/, ''))).toEqual([
      '[dropped: the task is no longer waiting in this stage] q',
    ]);
  });

  it('keeps a delivered task the workflow cannot take on, with a warning that says why', async () => {
    worker = startDeliveryWorker(t);
    const loop = { type: 'Annotator', conditions: [] };
    const id = await createProject(t, [
      { id: 'Start', type: 'Start', next: ['Hook'] },
      { id: 'Hook', type: 'Webhook', next: ['Ping'], webhook: hook() },
      { id: 'Ping', type: 'Logic', next: ['Pong'], logic: loop },
      { id: 'Pong', type: 'Logic', next: ['Ping'], logic: loop },
    ]);
    const taskIds = await importAssets(
      t,
      id,
      [1, 2].map((n) => ({ data: `https://cdn.example.com/l${n}.jpg` })),
    );
    await waitFor(async () => (await stageStatus(t, id, 'Hook')).warnings[0]?.failedCount === 2, 'two warnings');
    const warning = (await stageStatus(t, id, 'Hook')).warnings[0];
    expect(warning?.lastError).toMatch(/^HTTP 200, but the task could not move on: .*loop/);
    for (const x of taskIds) expect((await taskOf(t, x)).stage).toBe('Hook');
    const { logs } = await logsOf(t, id);
    expect(logs.map((l) => l.status)).toEqual([200, 200]);
    expect(logs[0]?.line).toMatch(/\]\[200 the task could not move on: /);
  });

  it('re-runs the failed tasks of a stage with new delivery ids and clears the warning', async () => {
    r.respond(() => ({ status: 500 }));
    const id = await createProject(t, hookWorkflow(hook({ retryCount: 0 })));
    const taskIds = await importAssets(
      t,
      id,
      [1, 2, 3].map((n) => ({ data: `https://cdn.example.com/r${n}.jpg` })),
    );
    worker = startDeliveryWorker(t);
    await waitFor(async () => (await stageStatus(t, id, 'Hook')).warnings[0]?.failedCount === 3, 'three failures');
    await worker.stop();
    const failedIds = new Set(taskIds.flatMap((x) => forTask(x).map((d) => d.deliveryId)));
    expect(failedIds.size).toBe(3);

    r.respond(() => ({ status: 200 }));
    const rerun = await t.call('POST', `/v2/project/${id}/rerun-webhook`, { body: { stageId: 'Hook' } });
    expect(rerun.statusCode, rerun.body).toBe(200);
    expect(rerun.json()).toEqual({
      status: 'success',
      data: { webhook: { stageIds: ['Hook'], queued: 3, alreadyQueued: 0 } },
    });
    expect((await stageStatus(t, id, 'Hook')).warnings).toEqual([]);
    // Queued and not yet sent: a second re-run skips them rather than sending twice.
    const again = await t.call('POST', `/v2/project/${id}/rerun-webhook`, { body: {} });
    expect(again.json().data.webhook).toEqual({ stageIds: ['Hook'], queued: 0, alreadyQueued: 3 });

    worker = startDeliveryWorker(t);
    for (const x of taskIds) await waitForStage(t, x, 'Complete');
    const resent = taskIds.map((x) => forTask(x).at(-1)?.deliveryId);
    expect(resent.every((d) => d !== undefined && !failedIds.has(d))).toBe(true);
    const none = await t.call('POST', `/v2/project/${id}/rerun-webhook`);
    expect(none.json().data.webhook).toEqual({ stageIds: ['Hook'], queued: 0, alreadyQueued: 0 });
    const hookLogs = await logsOf(t, id, '&stageId=Hook&page=1');
    expect(hookLogs.total).toBe(6);
    expect(hookLogs.logs.slice(0, 3).every((l) => l.status === 200)).toBe(true);
    const page = await t.call('GET', `/v2/project/${id}/webhookLogs?page=2&limit=4`);
    expect(page.json().data).toMatchObject({ total: 6 });
    expect(page.json().data.logs.map((l: { status: number }) => l.status)).toEqual([500, 500]);
  });

  it('shows each stage with its task count and no webhook secret; refuses bad input and roles', async () => {
    const id = await createProject(t, hookWorkflow(hook()));
    const res = await t.call('GET', `/v2/project/${id}/stages`);
    expect(res.statusCode).toBe(200);
    const stages = res.json().data.stages as Record<string, unknown>[];
    expect(stages.map((s) => [s.id, s.taskCount, s.warnings])).toEqual([
      ['Start', 0, []],
      ['Hook', 0, []],
      ['Complete', 0, []],
    ]);
    expect(res.body).not.toContain('"secret":');
    expect(res.body).not.toContain('op-secret-value');
    expect(stages[1]?.webhook).toMatchObject({ url: r.url, authType: 'secret', retryCount: 3, timeout: 30000 });

    const bad = async (method: string, url: string, body: unknown, field: string) => {
      const answer = await t.call(method, url, body === undefined ? {} : { body });
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json().errors.map((e: { field: string }) => e.field)).toEqual([field]);
    };
    await bad('POST', `/v2/project/${id}/rerun-webhook`, { stageId: 'Nope' }, 'stageId');
    await bad('POST', `/v2/project/${id}/rerun-webhook`, { stageId: 'Start' }, 'stageId');
    await bad('POST', `/v2/project/${id}/rerun-webhook`, { stageId: 42 }, 'stageId');
    await bad('GET', `/v2/project/${id}/webhookLogs?stageId=Nope`, undefined, 'stageId');
    await bad('GET', `/v2/project/${id}/webhookLogs?limit=101`, undefined, 'limit');
    await bad('GET', `/v2/project/${id}/webhookLogs?page=0`, undefined, 'page');

    const labeler = await t.addUser(`hook-labeler-${engine}@example.com`);
    const outsider = await t.addUser(`hook-outsider-${engine}@example.com`);
    const assign = await t.call('POST', `/v2/project/${id}/assigned`, {
      body: { assignees: [`hook-labeler-${engine}@example.com`], role: 'Labeler' },
    });
    expect(assign.statusCode).toBe(200);
    for (const [method, path] of [
      ['GET', 'stages'],
      ['GET', 'webhookLogs'],
      ['POST', 'rerun-webhook'],
    ] as const) {
      expect((await t.call(method, `/v2/project/${id}/${path}`, { key: labeler })).statusCode).toBe(403);
      expect((await t.call(method, `/v2/project/${id}/${path}`, { key: outsider })).statusCode).toBe(404);
    }
  });
});
