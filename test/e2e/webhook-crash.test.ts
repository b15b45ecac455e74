import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setOrganizationPlan } from '../../src/services/identity/identity.service.js';
import { WEBHOOK_DELIVERY_JOB } from '../../src/jobs/kinds.js';
import { type AnnotaryChild, CHILD_API_KEY, spawnAnnotary, startServe, storeEnv } from '../helpers/annotary-child.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { type Received, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { hookWorkflow } from '../helpers/webhooks.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Deliveries survive a killed server: 1,000 tasks enter a Webhook stage, the server is
 * SIGKILLed while deliveries are in flight and started again; every task ends past the stage,
 * every delivery reached the receiver, nothing is left queued. And two worker processes on one
 * PostgreSQL never send one delivery at the same time.
 */
const TASKS = 1_000;

describe.each(ENGINES)('webhook deliveries across crashes on %s', (engine) => {
  let store: TestStore;
  let receiver: Receiver;
  const children: AnnotaryChild[] = [];

  beforeEach(async () => {
    store = await makeStore(engine);
    receiver = await startReceiver({ secret: 'crash' });
  });
  afterEach(async () => {
    for (const c of children.splice(0)) await c.kill('SIGKILL');
    await receiver.close();
    await store.cleanup();
  });

  const env = (extra: Record<string, string> = {}) => ({
    ...storeEnv(store),
    ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true',
    ANNOTARY_JOB_RETRY_BASE_MS: '50',
    ...extra,
  });

  async function serve(extra: Record<string, string> = {}): Promise<string> {
    const { child, url } = await startServe(env(extra));
    children.push(child);
    return url;
  }

  /** Project Start -> Hook -> Complete with 1,000 imported tasks; the org gets a huge limit first. */
  async function pushTasks(url: string): Promise<string[]> {
    const org = await store.db.selectFrom('organizations').select('id').executeTakeFirstOrThrow();
    await setOrganizationPlan(store.db, org.id, 'enterprise', 100_000_000);
    const api = async (method: string, path: string, body: unknown) => {
      const res = await fetch(`${url}/v2${path}`, {
        method,
        headers: { apikey: CHILD_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as { data: Record<string, unknown> };
    };
    const project = (await api('POST', '/project', { name: 'Crash' })).data.project as { _id: string };
    const hook = { url: receiver.url, authType: 'secret', secret: 'crash', timeout: 5_000, retryCount: 5 } as const;
    await api('POST', `/project/${project._id}`, { stages: hookWorkflow(hook) });
    const assets = Array.from({ length: TASKS }, (_, i) => ({ data: `https://cdn.example.com/${i}.jpg` }));
    const imported = await api('POST', `/project/${project._id}/cloud`, { assets });
    return (imported.data.assets as { taskId: string }[]).map((a) => a.taskId);
  }

  const countIn = async (stage: string) =>
    Number(
      (
        await store.db
          .selectFrom('tasks')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('stage_id', '=', stage)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const unfinishedJobs = async () =>
    Number(
      (
        await store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('kind', '=', WEBHOOK_DELIVERY_JOB)
          .where('status', 'in', ['queued', 'running'])
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** No two requests of one delivery were ever open at the same time. */
  function assertNoOverlap(received: Received[]): void {
    for (const [id, sends] of receiver.byDelivery()) {
      const spans = sends.map((s) => [s.openedAt, s.closedAt ?? Infinity] as const).sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++) {
        expect(spans[i]![0], `delivery ${id} was sent twice at once`).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      }
    }
    expect(received.every((r) => r.signatureValid)).toBe(true);
  }

  /** Every task's delivery reached the receiver and got its 200; every task is Complete. */
  async function assertAllDelivered(taskIds: string[]): Promise<void> {
    const delivered = new Set(
      receiver.received.filter((r) => r.answered === 200).map((r) => (r.body?.task as { taskId: string }).taskId),
    );
    expect(taskIds.filter((id) => !delivered.has(id))).toEqual([]);
    expect(receiver.byDelivery().size).toBe(TASKS);
    expect(await countIn('Complete')).toBe(TASKS);
    expect(await unfinishedJobs()).toBe(0);
  }

  it('loses no delivery when the server is SIGKILLed mid-delivery', { timeout: 90_000 }, async () => {
    receiver.respond(() => ({ status: 200, delayMs: 20 }));
    const first = await serve();
    const taskIds = await pushTasks(first);
    expect(taskIds).toHaveLength(TASKS);
    await waitFor(() => receiver.received.length >= 200 && receiver.open() > 0, 'deliveries in flight', 30_000);
    const server = children.pop() as AnnotaryChild;
    const inFlight = receiver.open();
    await server.kill('SIGKILL');
    const doneAtKill = await countIn('Complete');
    expect(inFlight).toBeGreaterThan(0);
    expect(doneAtKill).toBeLessThan(TASKS);

    // The restarted server takes over the dead one's deliveries once their leases lapse.
    await serve();
    await waitFor(async () => (await countIn('Complete')) === TASKS, 'every task to be Complete', 60_000, 100);
    await waitFor(async () => (await unfinishedJobs()) === 0, 'the queue to drain', 10_000, 100);
    await assertAllDelivered(taskIds);
    assertNoOverlap(receiver.received);
    // What was in flight at the kill went out again, under its own delivery id.
    const resent = [...receiver.byDelivery().values()].filter((sends) => sends.length > 1);
    expect(resent.length).toBeGreaterThanOrEqual(1);
  });

  it.runIf(engine === 'postgres')(
    'never lets two worker processes send one delivery at the same time',
    { timeout: 90_000 },
    async () => {
      // Every fifth delivery fails its first attempt, so deliveries are sent more than once.
      receiver.respond((req) => ({
        status: req.attempt === 1 && parseInt(req.deliveryId.slice(-2), 16) % 5 === 0 ? 503 : 200,
        delayMs: 5 + (req.raw.length % 10),
      }));
      const url = await serve({ ANNOTARY_RUN_WORKER: 'false' });
      for (const name of ['a', 'b']) {
        const worker = spawnAnnotary(['worker'], env());
        children.push(worker);
        await worker.waitForLine(/Annotary worker .* running/);
        void name;
      }
      const taskIds = await pushTasks(url);
      await waitFor(async () => (await countIn('Complete')) === TASKS, 'every task to be Complete', 60_000, 100);
      await assertAllDelivered(taskIds);
      assertNoOverlap(receiver.received);
      expect(receiver.received.length).toBeGreaterThan(TASKS);
      const owners = await store.db
        .selectFrom('jobs')
        .select('lease_owner')
        .distinct()
        .where('kind', '=', WEBHOOK_DELIVERY_JOB)
        .execute();
      expect(owners.length, 'both workers delivered').toBe(2);
    },
  );
});
