import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow, streetOntology } from '../helpers/street-scene.js';

const ONTOLOGY = streetOntology();
const answer = (weather: string, x = 10) => ({
  tools: [{ schemaId: 'car', 'bounding-box': { x, y: 10, width: 20, height: 20 } }],
  classifications: [{ schemaId: 'weather', answer: weather }],
});

interface View {
  _id: string;
  stage: string;
  type: string;
  parentTask: string | null;
  consensusScore: number | null;
  completedAt: string | null;
  status: string;
  answer: { tools: unknown[]; classifications: { answer: string }[] };
}

describe.each(ENGINES)('Consensus stages on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    // Enough requests for every test of the file within the rate limit's minute.
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
  });
  afterAll(() => t.close());

  async function project(config: Record<string, unknown>, dynamicOn?: 'c1' | 'c2'): Promise<string> {
    const id = (await t.call('POST', '/v2/project', { body: { name: 'Consensus' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${id}`, {
      body: { categorySchema: ONTOLOGY, stages: consensusWorkflow(config, dynamicOn) },
    });
    expect(res.statusCode).toBe(200);
    return id;
  }
  const importOne = async (pid: string, name: string): Promise<string> =>
    (
      await t.call('POST', `/v2/project/${pid}/cloud`, {
        body: { assets: [{ data: `https://cdn.example.com/${name}` }] },
      })
    ).json().data.assets[0].taskId;
  const task = async (id: string): Promise<View> => (await t.call('GET', `/v2/task/${id}`)).json().data.task;
  const listed = async (pid: string, query: string): Promise<View[]> =>
    (await t.call('GET', `/v2/project/${pid}/tasks?limit=100&${query}`)).json().data.tasks;
  const copiesOf = async (pid: string, parent: string, stage: string) =>
    (await listed(pid, `stage=${stage}`)).filter((c) => c.parentTask === parent);
  const submit = async (id: string, body: unknown) => {
    const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer: body } });
    expect(res.statusCode).toBe(200);
    return res.json().data.task as View;
  };

  it('makes one copy per sub-stage while the parent waits; two that agree pass by next[0] with score 1', async () => {
    const pid = await project({ threshold: 0.8 });
    const parent = await importOne(pid, 'agree.jpg');
    expect(await task(parent)).toMatchObject({ stage: 'C', type: 'default', consensusScore: null });
    const [c1] = await copiesOf(pid, parent, 'c1');
    const [c2] = await copiesOf(pid, parent, 'c2');
    expect(c1).toMatchObject({ type: 'consensus', parentTask: parent, status: 'TODO' });
    expect(c2?.type).toBe('consensus');
    const filtered = await listed(pid, `filter=${encodeURIComponent(JSON.stringify({ type: 'consensus' }))}`);
    expect(filtered.map((x) => x._id).sort()).toEqual([c1?._id, c2?._id].sort());
    // A labeler of the sub-stage is handed a copy like any Label task.
    const next = await t.call('GET', `/v2/project/${pid}/next?stageId=c1`);
    expect(next.json().data.task._id).toBe(c1?._id);

    const first = await submit(c1?._id as string, answer('sun'));
    // The submitted copy rests in the container, done; it never becomes a parent.
    expect(first).toMatchObject({ stage: 'C', type: 'consensus' });
    expect(first.completedAt).not.toBeNull();
    expect((await copiesOf(pid, first._id, 'c1')).length).toBe(0);
    expect((await task(parent)).stage).toBe('C');

    await submit(c2?._id as string, answer('sun', 11));
    const done = await task(parent);
    expect(done).toMatchObject({ stage: 'Done', status: 'Completed' });
    // Box IoU 380/420 is below 1, so the score is the mean of 1 (weather) and 19/21 (car),
    // kept to 6 decimals so that both stores report the same value.
    expect(done.consensusScore).toBe(0.952381);
    expect(done.answer.classifications.map((c) => c.answer)).toEqual(['sun']);
    expect(done.answer.tools).toHaveLength(1);
    const history = (await t.call('GET', `/v2/task/${parent}/history`)).json().data.taskHistory;
    expect(history.map((h: { stageId: string; trigger: string }) => `${h.stageId}:${h.trigger}`)).toEqual([
      'C:consensus',
    ]);
    const copyHistory = (await t.call('GET', `/v2/task/${c1?._id}/history`)).json().data.taskHistory;
    expect(copyHistory).toMatchObject([{ stageId: 'c1', trigger: 'submit', consensusId: 'C' }]);

    const exact = await importOne(pid, 'exact.jpg');
    for (const stage of ['c1', 'c2']) {
      const [copy] = await copiesOf(pid, exact, stage);
      await submit(copy?._id as string, answer('rain'));
    }
    expect(await task(exact)).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });

  it('two copies that disagree leave by next[1] with the adjudicated answer and their score', async () => {
    const pid = await project({ threshold: 0.8, adjudicationMethod: 'first' });
    const parent = await importOne(pid, 'disagree.jpg');
    const [c2] = await copiesOf(pid, parent, 'c2');
    const [c1] = await copiesOf(pid, parent, 'c1');
    await submit(c2?._id as string, { classifications: [{ schemaId: 'weather', answer: 'rain' }] });
    await submit(c1?._id as string, { classifications: [{ schemaId: 'weather', answer: 'sun' }] });
    const out = await task(parent);
    expect(out).toMatchObject({ stage: 'Disputed', consensusScore: 0.5 });
    // `first`: the first submitted copy (c2's) is the answer.
    expect(out.answer.classifications.map((c) => c.answer)).toEqual(['rain']);
  });

  it('with dynamicConsensus a third copy is made, in the stage marked consensusDynamic, and decides', async () => {
    const pid = await project({ threshold: 0.8, dynamicConsensus: true, maxCopies: 3 }, 'c2');
    const parent = await importOne(pid, 'dynamic.jpg');
    const [c1] = await copiesOf(pid, parent, 'c1');
    const [c2] = await copiesOf(pid, parent, 'c2');
    await submit(c1?._id as string, answer('sun'));
    await submit(c2?._id as string, answer('rain'));
    const waiting = await task(parent);
    expect(waiting).toMatchObject({ stage: 'C', consensusScore: 0.75 });
    const open = await copiesOf(pid, parent, 'c2');
    expect(open).toHaveLength(1);
    expect(open[0]?._id).not.toBe(c2?._id);
    await submit(open[0]?._id as string, answer('sun'));
    const done = await task(parent);
    // weather 2/3, car 1: mean 5/6, above 0.8; the majority answer is sun.
    expect(done.stage).toBe('Done');
    expect(done.consensusScore).toBe(0.833333);
    expect(done.answer.classifications.map((c) => c.answer)).toEqual(['sun']);
  });

  it('two copies submitted at the same moment still decide', async () => {
    const pid = await project({ threshold: 0.8 });
    const parents = await Promise.all(['race-1.jpg', 'race-2.jpg', 'race-3.jpg'].map((n) => importOne(pid, n)));
    const copies = (await listed(pid, `filter=${encodeURIComponent(JSON.stringify({ type: 'consensus' }))}`)).map(
      (c) => c._id,
    );
    expect(copies).toHaveLength(6);
    await Promise.all(copies.map((id) => submit(id, answer('sun'))));
    for (const parent of parents) expect(await task(parent)).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });

  it('with maxCopies reached, a low score leaves by next[1]', async () => {
    const pid = await project({ threshold: 0.9, dynamicConsensus: true, minCopies: 2, maxCopies: 2 });
    const parent = await importOne(pid, 'capped.jpg');
    for (const [stage, weather] of [
      ['c1', 'sun'],
      ['c2', 'rain'],
    ] as const) {
      const [copy] = await copiesOf(pid, parent, stage);
      await submit(copy?._id as string, answer(weather));
    }
    expect((await task(parent)).stage).toBe('Disputed');
  });

  it('requeue: copies move only when named; a parent requeued out drops its open copies', async () => {
    const pid = await project({ threshold: 0.8 });
    const parent = await importOne(pid, 'requeue.jpg');
    const [c1] = await copiesOf(pid, parent, 'c1');
    const [c2] = await copiesOf(pid, parent, 'c2');
    await submit(c1?._id as string, answer('sun'));
    const requeue = (body: unknown) => t.call('POST', `/v2/project/${pid}/requeueTasks`, { body });
    // A filter that does not name copies leaves them alone.
    const byStage = await requeue({ toStageId: 'Disputed', filters: { fromStageIds: ['c2'] } });
    expect(byStage.json().data.modifiedCount.modified).toBe(0);
    expect((await task(c2?._id as string)).stage).toBe('c2');

    const out = await requeue({ toStageId: 'Disputed', filters: { taskIds: [parent] } });
    expect(out.json().data.modifiedCount.modified).toBe(1);
    expect((await task(parent)).stage).toBe('Disputed');
    expect((await t.call('GET', `/v2/task/${c2?._id}`)).statusCode).toBe(404);
    // The submitted copy stays, as the record of the round.
    expect((await task(c1?._id as string)).stage).toBe('C');

    // Back into the container: a new round of copies; the old one is retired.
    await requeue({ toStageId: 'C', filters: { taskIds: [parent] } });
    const fresh = [...(await copiesOf(pid, parent, 'c1')), ...(await copiesOf(pid, parent, 'c2'))];
    expect(fresh).toHaveLength(2);
    expect(fresh.map((c) => c._id)).not.toContain(c1?._id);
    expect((await t.call('GET', `/v2/task/${c1?._id}`)).statusCode).toBe(404);
  });

  it('/next never hands one person two copies of the same asset in a round', async () => {
    const pid = await project({ threshold: 0.8 });
    const a = await importOne(pid, 'independent-a.jpg');
    const next = async (stage: string, key?: string) =>
      (await t.call('GET', `/v2/project/${pid}/next?stageId=${stage}`, key ? { key } : {})).json().data
        .task as View | null;

    const first = await next('c1');
    expect(first?.parentTask).toBe(a);
    // The owner holds A's c1 copy: A's c2 copy is not theirs to take, and nothing else waits in c2.
    expect(await next('c2')).toBeNull();
    // Nor once the c1 copy is submitted (it rests in the container, completed by them).
    await submit(first?._id as string, answer('sun'));
    expect(await next('c2')).toBeNull();

    // Another asset's copy is fine.
    const b = await importOne(pid, 'independent-b.jpg');
    expect((await next('c2'))?.parentTask).toBe(b);

    // Someone else gets A's c2 copy, and their answer decides the round.
    const labeler = `consensus-second-${engine}@example.com`;
    const key = await t.addUser(labeler);
    await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [labeler], role: 'Labeler' } });
    const theirs = await next('c2', key);
    expect(theirs?.parentTask).toBe(a);
    const res = await t.call('POST', `/v2/annotate/${theirs?._id}?nextStage=true`, {
      key,
      body: { answer: answer('sun') },
    });
    expect(res.statusCode).toBe(200);
    expect(await task(a)).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });

  it('two /next calls of one person at the same moment take copies of different assets', async () => {
    const pid = await project({ threshold: 0.8 });
    // More assets than rounds, so each person always finds copies of two different assets.
    for (let i = 0; i < 8; i++) await importOne(pid, `race-${i}.jpg`);
    for (let round = 0; round < 6; round++) {
      const person = `consensus-race-${round}-${engine}@example.com`;
      const key = await t.addUser(person);
      const added = await t.call('POST', `/v2/project/${pid}/assigned`, {
        body: { assignees: [person], role: 'Labeler' },
      });
      expect(added.statusCode, added.body).toBe(200);
      const [one, two] = await Promise.all(
        ['c1', 'c2'].map(async (stage) => {
          const res = await t.call('GET', `/v2/project/${pid}/next?stageId=${stage}`, { key });
          expect(res.statusCode, res.body).toBe(200);
          return res.json().data.task as View | null;
        }),
      );
      expect(one).not.toBeNull();
      expect(two).not.toBeNull();
      expect(one?.parentTask).not.toBe(two?.parentTask);
    }
  });
});
