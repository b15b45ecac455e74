import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { download, listening, unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { streetOntology } from '../helpers/street-scene.js';

const box = (id: string, x: number, height = 10) => ({
  schemaId: 'car',
  objectId: id,
  'bounding-box': { x, y: x, width: 10, height },
});
const weather = (answer: string) => [{ schemaId: 'weather', answer }];
// The reference: two cars (one far out, at 6543.25) and sunny weather.
const REFERENCE = { tools: [box('ref-a', 0), box('ref-b', 6543.25)], classifications: weather('Sunny') };
// Half the first car (IoU 0.5), the second missed, the weather wrong: (0.5 / 2 + 0) / 2 = 12.5.
const HALF_WRONG = { tools: [box('mine', 0, 5)], classifications: weather('Rainy') };
const EXACT = { tools: [box('a', 0), box('b', 6543.25)], classifications: weather('Sunny') };

interface Handed {
  _id: string;
  type: string;
  stage: string;
  answer: { tools: unknown[] };
}

describe.each(ENGINES)('the benchmark queue on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let benchmarks: string[];
  const people: Record<string, { email: string; key: string }> = {};

  const next = async (who: string) => {
    const res = await t.call('GET', `/v2/project/${projectId}/next?stageId=Label`, { key: people[who]?.key ?? null });
    expect(res.statusCode).toBe(200);
    return res.json().data as { task: Handed | null; reason?: string };
  };
  const submit = async (who: string, taskId: string, answer: unknown) => {
    const res = await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      body: { answer },
      key: people[who]?.key ?? null,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const scores = async (who: string) => {
    const res = await t.call('GET', `/v2/project/${projectId}/benchmarkSubmissions?labeler=${people[who]?.email}`);
    return (res.json().data.submissions as { taskId: string; score: number }[]).map((s) => [s.taskId, s.score]);
  };
  const importTasks = async (n: number, prefix: string) => {
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: Array.from({ length: n }, (_, i) => ({ data: `https://cdn.example.com/${prefix}${i}.jpg` })) },
    });
    return res.json().data.assets.map((a: { taskId: string }) => a.taskId) as string[];
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise', ANNOTARY_RANDOM_SEED: 'bench' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Queue' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: streetOntology() } });
    const tasks = await importTasks(20, 'q');
    benchmarks = tasks.slice(0, 4);
    const marked = await t.call('POST', `/v2/project/${projectId}/benchmarks`, {
      body: { tasks: benchmarks, answer: REFERENCE },
    });
    expect(marked.statusCode).toBe(200);
    const on = await t.call('POST', `/v2/project/${projectId}`, {
      body: { benchmarkEnabled: true, benchmarkRatio: 0.5 },
    });
    expect(on.statusCode, on.body).toBe(200);
    for (const who of ['ann', 'bob']) {
      const email = `${who}-${engine}@example.com`;
      people[who] = { email, key: await t.addUser(email, 'member') };
      await t.call('POST', `/v2/project/${projectId}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
    }
  });
  afterAll(() => t.close());

  it('hands each benchmark at most once, mixed among the tasks, and scores it exactly', async () => {
    const seen: string[] = [];
    let first = true;
    for (let guard = 0; guard < 40; guard += 1) {
      const { task } = await next('ann');
      if (!task) break;
      seen.push(task._id);
      expect(JSON.stringify(task)).not.toContain('6543.25');
      expect(task.type).not.toBe('benchmark');
      // Asking again answers the same task until it is submitted.
      expect((await next('ann')).task?._id).toBe(task._id);
      const isBenchmark = benchmarks.includes(task._id);
      const body = await submit('ann', task._id, isBenchmark ? (first ? HALF_WRONG : EXACT) : { tools: [box('x', 5)] });
      if (!isBenchmark || first) expect(body).not.toContain('6543.25');
      if (isBenchmark) first = false;
    }
    expect(seen).toHaveLength(20);
    expect(new Set(seen).size).toBe(20);
    const order = seen.filter((id) => benchmarks.includes(id));
    expect(order).toEqual([...benchmarks].sort());
    // Mixed in, not all at the start or the end: the seeded draws put some before regular tasks.
    expect(seen.indexOf(order[3] as string)).toBeLessThan(19);
    expect(await scores('ann')).toEqual([
      [order[0], 12.5],
      [order[1], 100],
      [order[2], 100],
      [order[3], 100],
    ]);
    // The benchmark tasks neither moved nor changed.
    for (const id of benchmarks) {
      const task = (await t.call('GET', `/v2/task/${id}`)).json().data.task;
      expect(task).toMatchObject({ stage: 'Label', type: 'benchmark', assignee: null });
      expect(task.answer.tools).toEqual([]);
    }
  });

  it('stops a labeler whose average falls below the threshold until a Manager resumes them', async () => {
    await t.call('POST', `/v2/project/${projectId}`, { body: { benchmarkCutoff: true } });
    const fresh = await importTasks(20, 'late');
    // Bob answers every benchmark with nothing (score 0); after three he is stopped.
    let regular = 0;
    for (let guard = 0; guard < 40; guard += 1) {
      const { task, reason } = await next('bob');
      if (!task) {
        expect(reason).toMatch(
          /average benchmark score \(0\.0 over 4 benchmarks\) is below this project's threshold of 70/,
        );
        break;
      }
      if (benchmarks.includes(task._id)) await submit('bob', task._id, {});
      else {
        regular += 1;
        await submit('bob', task._id, { tools: [box('x', 5)] });
      }
    }
    expect((await scores('bob')).map(([, s]) => s)).toEqual([0, 0, 0, 0]);
    expect(regular).toBeLessThan(20);
    // Stopped while ordinary tasks wait for him.
    const queue = await t.call('GET', `/v2/project/${projectId}/queue`, { key: people.bob?.key ?? null });
    expect(queue.json().data.stages[0].waiting).toBe(20 - regular);
    const stillStopped = await next('bob');
    expect(stillStopped.task).toBeNull();
    expect(stillStopped.reason).toContain('a Manager of the project has to let you continue');
    // Only a Manager may resume; then Bob gets ordinary tasks again.
    const bobSelf = await t.call('POST', `/v2/project/${projectId}/benchmarks/resume`, {
      body: { labeler: people.bob?.email },
      key: people.bob?.key ?? null,
    });
    expect(bobSelf.statusCode).toBe(403);
    // Someone neither of the project nor with a benchmark in it: refused, naming the field.
    const nobody = await t.call('POST', `/v2/project/${projectId}/benchmarks/resume`, {
      body: { labeler: `nobody-${engine}@example.com` },
    });
    expect(nobody.statusCode).toBe(400);
    expect(nobody.json()).toMatchObject({ errors: [{ field: 'labeler' }] });
    const resumed = await t.call('POST', `/v2/project/${projectId}/benchmarks/resume`, {
      body: { labeler: people.bob?.email?.toUpperCase() },
    });
    expect(resumed.statusCode, resumed.body).toBe(200);
    // One audit record, the refused resumes none: the Manager's key id (never the key), the
    // labeler as the target.
    const audit = await t.call('GET', `/v2/organization/${t.orgId}/audit?operation=benchmark.resume`);
    expect(audit.statusCode, audit.body).toBe(200);
    const records = audit.json().data.records as Record<string, unknown>[];
    const ownerKeyId = await t.store.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select(['api_keys.id', 'users.id as userId'])
      .where('users.email', '=', t.ownerEmail)
      .where('api_keys.revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(records).toEqual([
      expect.objectContaining({
        operation: 'benchmark.resume',
        userId: ownerKeyId.userId,
        actor: ownerKeyId.id,
        target: { type: 'member', id: people.bob?.email },
        projectId,
        fields: [],
      }),
    ]);
    expect(audit.body).not.toContain(t.ownerKey);
    expect(audit.body).not.toContain(people.bob?.key);
    const after = await next('bob');
    expect(fresh).toContain(after.task?._id);
    expect(after.reason).toBeUndefined();
  });

  it('lets a labeler read the benchmark handed to them as their task, never its reference', async () => {
    // Cara has done no benchmark: at ratio 1 her next task is one.
    const email = `cara-${engine}@example.com`;
    people.cara = { email, key: await t.addUser(email, 'member') };
    await t.call('POST', `/v2/project/${projectId}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
    await t.call('POST', `/v2/project/${projectId}`, { body: { benchmarkRatio: 1, benchmarkCutoff: false } });
    const { task } = await next('cara');
    expect(benchmarks).toContain(task?._id);
    const read = await t.call('GET', `/v2/task/${task?._id}`, { key: people.cara.key });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data.task).toMatchObject({ _id: task?._id, type: 'default', assignee: email, stage: 'Label' });
    expect(read.json().data.task.answer).toEqual({ tools: [], classifications: [], relations: [] });
    expect(read.body).not.toContain('6543.25');
    // Another labeler, not handed it, still may not read it; once submitted, neither may Cara.
    expect((await t.call('GET', `/v2/task/${task?._id}`, { key: people.ann?.key ?? null })).statusCode).toBe(403);
    await submit('cara', task?._id as string, EXACT);
    expect((await t.call('GET', `/v2/task/${task?._id}`, { key: people.cara.key })).statusCode).toBe(403);
    await t.call('POST', `/v2/project/${projectId}`, { body: { benchmarkRatio: 0.5 } });
  });

  it("gives each labeler's benchmark count and average score in the performance report", async () => {
    const res = await t.call('POST', `/v2/performance/${projectId}`, { body: {} });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.benchmarks).toEqual([
      { user: people.ann?.email, benchmarks: 4, averageScore: 78.13 },
      { user: people.bob?.email, benchmarks: 4, averageScore: 0 },
      { user: people.cara?.email, benchmarks: 1, averageScore: 100 },
    ]);
    const none = await t.call('POST', `/v2/performance/${projectId}`, {
      body: { interval: ['2000-01-01', '2000-01-02'] },
    });
    expect(none.json().data.benchmarks).toEqual([]);
  });

  it('keeps references and scores from Labelers', async () => {
    const key = people.ann?.key ?? null;
    const own = await t.call('GET', `/v2/project/${projectId}/benchmarkSubmissions?labeler=${people.ann?.email}`, {
      key,
    });
    expect(own.statusCode).toBe(403);
    expect((await t.call('GET', `/v2/project/${projectId}/benchmarks/${benchmarks[0]}`, { key })).statusCode).toBe(403);
    const read = await t.call('GET', `/v2/task/${benchmarks[0]}`, { key });
    expect(read.statusCode).toBe(403);
    expect(read.body).not.toContain('6543.25');
  });

  it('exports benchmarks with their reference and every scored submission', async () => {
    const res = await t.call(
      'GET',
      `/v2/exportV3?project=${projectId}&taskTypes=${encodeURIComponent('["benchmark"]')}&format=json`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const got = await download(res.json().data.exportPath as string, await listening(t.app));
    const [entry] = await unzip(got.body);
    const items = JSON.parse(entry?.text ?? '[]') as { task: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(items.map((i) => i.task.taskId).sort()).toEqual([...benchmarks].sort());
    const listed = (await t.call('GET', `/v2/project/${projectId}/benchmarkSubmissions`)).json().data.submissions as {
      taskId: string;
      labeler: string;
      score: number;
    }[];
    for (const item of items) {
      const b = item.task.benchmark;
      expect(item.task.taskType).toBe('benchmark');
      expect(b.source).toBe('given');
      expect(b.reference.tools.map((o: { objectId: string }) => o.objectId)).toEqual(['ref-a', 'ref-b']);
      const expected = listed.filter((l) => l.taskId === item.task.taskId);
      expect(b.submissions.map((x: { labeler: string; score: number }) => [x.labeler, x.score])).toEqual(
        expected.map((l) => [l.labeler, l.score]),
      );
      for (const x of b.submissions) expect(x.answer).toHaveProperty('tools');
    }
    expect(items.reduce((n, i) => n + i.task.benchmark.submissions.length, 0)).toBe(listed.length);
    // The isBenchmark filter agrees: the four benchmarks, and every other task for false.
    const filtered = async (isBenchmark: boolean) => {
      const q = encodeURIComponent(JSON.stringify({ isBenchmark }));
      const page = await t.call('GET', `/v2/project/${projectId}/tasks?limit=100&filter=${q}`);
      expect(page.statusCode, page.body).toBe(200);
      return (page.json().data.tasks as { _id: string; type: string }[]).map((x) => x._id).sort();
    };
    const marked = await filtered(true);
    expect(marked).toEqual(items.map((i) => i.task.taskId as string).sort());
    const others = await filtered(false);
    // 40 tasks imported, 4 of them benchmarks.
    expect(others).toHaveLength(36);
    expect(others.filter((id) => marked.includes(id))).toEqual([]);
  });

  it('forgets what was measured when benchmarking is turned off; a ratio of 0 only pauses', async () => {
    const measured = async () =>
      (await t.call('GET', `/v2/project/${projectId}/benchmarkSubmissions`)).json().data.submissions.length as number;
    const before = await measured();
    expect(before).toBeGreaterThan(0);
    await t.call('POST', `/v2/project/${projectId}`, { body: { benchmarkRatio: 0 } });
    expect(await measured()).toBe(before);
    const off = await t.call('POST', `/v2/project/${projectId}`, { body: { benchmarkEnabled: false } });
    expect(off.statusCode, off.body).toBe(200);
    expect(await measured()).toBe(0);
    const report = await t.call('POST', `/v2/performance/${projectId}`, { body: {} });
    expect(report.json().data.benchmarks).toEqual([]);
    // The benchmarks and their references stay, for when it is turned on again.
    const reference = await t.call('GET', `/v2/project/${projectId}/benchmarks/${benchmarks[0]}`);
    expect(reference.statusCode).toBe(200);
  });
});
