import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Labeling', next: ['Review'] },
  { id: 'Review', type: 'Review', name: 'Check', next: ['Complete', 'Label'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

interface QueueStage {
  stageId: string;
  stageName: string;
  stageType: string;
  waiting: number | null;
  waitingCapped: boolean;
  assignedToYou: number;
}

describe.each(ENGINES)('GET /project/{id}/queue on %s', (engine) => {
  let t: TestApp;
  const ann = `queue-ann-${engine}@example.com`;
  const bo = `queue-bo-${engine}@example.com`;
  const rev = `queue-rev-${engine}@example.com`;
  const stranger = `queue-stranger-${engine}@example.com`;
  let annKey: string;
  let boKey: string;
  let revKey: string;
  let strangerKey: string;

  /** A project with `count` tasks waiting in Label; Ann and Bo Labelers, Rev a Reviewer. */
  async function project(count: number, settings: Record<string, unknown> = {}) {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Queue' } })).json().data.project._id as string;
    const upd = await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, ...settings } });
    expect(upd.statusCode, upd.body).toBe(200);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [ann, bo], role: 'Labeler' } });
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [rev], role: 'Reviewer' } });
    const assets = Array.from({ length: count }, (_, i) => ({ data: `https://cdn.example.com/${i}.jpg` }));
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets } });
    expect(res.statusCode, res.body).toBe(201);
    return pid;
  }
  const queue = async (pid: string, key?: string) => {
    const res = await t.call('GET', `/v2/project/${pid}/queue`, key === undefined ? {} : { key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.stages as QueueStage[];
  };
  const stage = async (pid: string, key: string | undefined, id: string) =>
    (await queue(pid, key)).find((s) => s.stageId === id);
  const next = async (pid: string, key: string) =>
    (await t.call('GET', `/v2/project/${pid}/next?stageId=Label`, { key })).json().data.task as { _id: string } | null;
  const setCounts = async (pid: string, on: boolean) =>
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { queueCountsEnabled: on } })).statusCode).toBe(200);

  beforeAll(async () => {
    t = await makeTestApp(engine);
    annKey = await t.addUser(ann);
    boKey = await t.addUser(bo);
    revKey = await t.addUser(rev);
    strangerKey = await t.addUser(stranger);
  });
  afterAll(() => t.close());

  it('shows Labelers the waiting count by default, and keeps a stored choice to hide it', async () => {
    const pid = await project(2);
    expect((await t.call('GET', `/v2/project/${pid}`)).json().data.project.queueCountsEnabled).toBe(true);
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: 2, assignedToYou: 0 });
    await setCounts(pid, false);
    // Another setting's write leaves the stored choice as it was.
    const other = await t.call('POST', `/v2/project/${pid}`, { body: { taskSkipEnabled: true } });
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json().data.project.queueCountsEnabled).toBe(false);
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: null, assignedToYou: 0 });
  });

  it('gives Managers and Reviewers the count, Labelers only their own tasks while the flag is off', async () => {
    const pid = await project(3, { queueCountsEnabled: false });
    expect(await queue(pid)).toEqual([
      {
        stageId: 'Label',
        stageName: 'Labeling',
        stageType: 'Label',
        waiting: 3,
        waitingCapped: false,
        assignedToYou: 0,
      },
      {
        stageId: 'Review',
        stageName: 'Check',
        stageType: 'Review',
        waiting: 0,
        waitingCapped: false,
        assignedToYou: 0,
      },
    ]);
    expect((await queue(pid, revKey)).map((s) => [s.stageId, s.waiting])).toEqual([
      ['Label', 3],
      ['Review', 0],
    ]);
    // A Labeler works Label stages only, and sees no count.
    expect(await queue(pid, annKey)).toEqual([
      {
        stageId: 'Label',
        stageName: 'Labeling',
        stageType: 'Label',
        waiting: null,
        waitingCapped: false,
        assignedToYou: 0,
      },
    ]);
    await next(pid, annKey);
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: null, assignedToYou: 1 });
    // Ann's task waits for nobody else.
    expect(await stage(pid, undefined, 'Label')).toMatchObject({ waiting: 2, assignedToYou: 0 });
  });

  it('with queueCountsEnabled counts what /next can hand the Labeler, down to 0', async () => {
    const pid = await project(4, { queueCountsEnabled: true });
    expect((await t.call('GET', `/v2/project/${pid}`, { key: annKey })).json().data.project.queueCountsEnabled).toBe(
      true,
    );
    // Bo holds one: it is neither waiting for Ann nor hers.
    expect(await next(pid, boKey)).not.toBeNull();
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: 3, waitingCapped: false, assignedToYou: 0 });
    expect(await stage(pid, boKey, 'Label')).toMatchObject({ waiting: 3, assignedToYou: 1 });

    // Ann takes and submits until /next has nothing: each take moves one from waiting to hers.
    let waiting = 3;
    for (;;) {
      const task = await next(pid, annKey);
      if (!task) break;
      waiting -= 1;
      expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting, assignedToYou: 1 });
      const done = await t.call('POST', `/v2/annotate/${task._id}?nextStage=true`, {
        key: annKey,
        body: { answer: {} },
      });
      expect(done.statusCode, done.body).toBe(200);
      expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting, assignedToYou: 0 });
    }
    expect(waiting).toBe(0);
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: 0, assignedToYou: 0 });
    // The three Ann submitted wait in Review, for the Reviewer and the Manager.
    expect(await stage(pid, revKey, 'Review')).toMatchObject({ waiting: 3, assignedToYou: 0 });
    expect(await stage(pid, undefined, 'Review')).toMatchObject({ waiting: 3 });

    // Off again: Ann loses the count, the Manager keeps it.
    await setCounts(pid, false);
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: null });
    expect(await stage(pid, undefined, 'Label')).toMatchObject({ waiting: 0 });
  });

  it("lists only the stages the caller's role and the stage's assignedTo let them take from", async () => {
    const stages = STAGES.map((s) => (s.id === 'Label' ? { ...s, assignedTo: [bo] } : s));
    const pid = await project(2, { stages, queueCountsEnabled: true });
    expect(await queue(pid, annKey)).toEqual([]);
    expect((await queue(pid, boKey)).map((s) => [s.stageId, s.waiting])).toEqual([['Label', 2]]);
    expect((await queue(pid, revKey)).map((s) => s.stageId)).toEqual(['Review']);
  });

  it('stops counting past 1000 and says so', async () => {
    const pid = await project(1002, { queueCountsEnabled: true });
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: 1000, waitingCapped: true });
    expect(await next(pid, annKey)).not.toBeNull();
    expect(await next(pid, boKey)).not.toBeNull();
    // 1000 free now: exact again.
    expect(await stage(pid, annKey, 'Label')).toMatchObject({ waiting: 1000, waitingCapped: false, assignedToYou: 1 });
  });

  it('answers error envelopes: 404 for an unknown project or a non-member, 401 without a key', async () => {
    const pid = await project(1);
    for (const [path, key] of [
      ['/v2/project/000000000000000000000000/queue', undefined],
      ['/v2/project/not-an-id/queue', undefined],
      [`/v2/project/${pid}/queue`, strangerKey],
    ] as const) {
      const res = await t.call('GET', path, key === undefined ? {} : { key });
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject({ status: 'fail', message: expect.stringContaining('project') });
      expect(res.body).not.toMatch(/select|stack|at \//i);
    }
    const anon = await t.call('GET', `/v2/project/${pid}/queue`, { key: null });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toMatchObject({ status: 'fail' });
  });
});
