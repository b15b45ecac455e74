import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

const ONTOLOGY = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' }] };
const BOX = { schemaId: 'car', objectId: 'obj-1', 'bounding-box': { x: 1, y: 2, width: 3, height: 4 } };

describe.each(ENGINES)('issues on tasks on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let tasks: [string, string, string, string];
  let users: RoleUsers;

  const openCount = async (taskId: string) => {
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    const stored = await t.store.db
      .selectFrom('issues')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('task_id', '=', taskId)
      .where('status', '=', 'Open')
      .where('deleted', '=', 0)
      .executeTakeFirstOrThrow();
    expect(task.openIssuesCount).toBe(Number(stored.n));
    return task.openIssuesCount as number;
  };
  const create = (body: Record<string, unknown>, key?: string) =>
    t.call('POST', '/v2/issues', { body: { content: 'Box is too wide', ...body }, ...(key ? { key } : {}) });

  beforeAll(async () => {
    // Many requests from one key: the enterprise plan's 1000/min keeps the limiter out of the way.
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Issues' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: ONTOLOGY } });
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: ['a', 'b', 'c', 'd'].map((n) => ({ data: `https://cdn.example.com/${n}.jpg` })) },
    });
    tasks = imported.json().data.assets.map((a: { taskId: string }) => a.taskId) as typeof tasks;
    await t.call('POST', `/v2/annotate/${tasks[0]}`, { body: { answer: { tools: [BOX] } } });
    users = await addRoleUsers(t, projectId, engine);
    // The Labeler works task c (index 2) only.
    const assign = await t.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [tasks[2]], stage: 'Label', user: users.email.Labeler },
    });
    expect(assign.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('creates an issue with a position and answers its record', async () => {
    const res = await create({ labelTask: tasks[0], position: '[10.5, 20]', page: 0 });
    expect(res.statusCode).toBe(201);
    const issue = res.json().data.issue;
    expect(issue).toMatchObject({
      project: projectId,
      labelTask: tasks[0],
      stage: 'Label',
      content: 'Box is too wide',
      position: '[10.5, 20]',
      page: 0,
      objectId: null,
      errorCodes: [],
      status: 'Open',
      comments: [],
      createdBy: 'admin@annotary.local',
    });
    expect(issue._id).toMatch(/^[0-9a-f]{24}$/);
    expect(issue.asset).toMatch(/^[0-9a-f]{24}$/);
    expect(await openCount(tasks[0])).toBe(1);
    const onText = await create({ labelTask: tasks[0], position: '42' });
    expect(onText.statusCode).toBe(201);
    const onObject = await create({ labelTask: tasks[0], objectId: 'obj-1' });
    expect(onObject.json().data.issue.objectId).toBe('obj-1');
    expect(await openCount(tasks[0])).toBe(3);
  });

  it('names the field of every bad input and writes nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ labelTask: tasks[0], position: 'top left' }, 400, 'position'],
      [{ labelTask: tasks[0], position: '[1]' }, 400, 'position'],
      [{ labelTask: tasks[0], position: '-3' }, 400, 'position'],
      [{ labelTask: tasks[0], position: '[1, 2]', objectId: 'obj-1' }, 400, 'objectId'],
      [{ labelTask: tasks[0], objectId: 'nope' }, 400, 'objectId'],
      [{ labelTask: tasks[0], content: '   ' }, 400, 'content'],
      [{ labelTask: tasks[0], page: -1 }, 400, 'page'],
      [{ labelTask: tasks[0], errorCodes: ['E1'] }, 400, 'errorCodes'],
      [{ content: 'x' }, 400, 'labelTask'],
      [{ labelTask: 'ffffffffffffffffffffffff' }, 404, 'labelTask'],
    ];
    for (const [body, status, field] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().status).toBe('fail');
      expect(res.json().errors[0].field).toBe(field);
    }
    expect(await openCount(tasks[0])).toBe(3);
  });

  it("takes error codes from the project's errorSchema when enabled", async () => {
    await t.call('POST', `/v2/project/${projectId}`, {
      body: {
        errorCodesEnabled: true,
        errorSchema: { codes: [{ code: 'E1', name: 'Loose box' }, { value: 'E2' }, 'E3'] },
      },
    });
    const res = await create({ labelTask: tasks[1], errorCodes: ['E1', 'E3', 'E1'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.issue.errorCodes).toEqual(['E1', 'E3']);
    const unknown = await create({ labelTask: tasks[1], errorCodes: ['E1', 'E9'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('errorCodes[1]');
    // The other accepted shape: {errorCodes: [...]}.
    await t.call('POST', `/v2/project/${projectId}`, { body: { errorSchema: { errorCodes: [{ key: 'K1' }] } } });
    expect((await create({ labelTask: tasks[1], errorCodes: ['K1'] })).statusCode).toBe(201);
    expect(await openCount(tasks[1])).toBe(2);
  });

  it('takes error codes as {category, name, key} objects, and an update of pctDetails alone', async () => {
    await t.call('POST', `/v2/project/${projectId}`, {
      body: { errorCodesEnabled: true, errorSchema: { codes: ['C1', { key: 'C2', name: 'Missing object' }] } },
    });
    const code = { category: 'Geometry', name: 'Missing object', key: 'C2' };
    const res = await create({ labelTask: tasks[3], errorCodes: [code, 'C1', { ...code, name: 'again' }] });
    expect(res.statusCode, res.body).toBe(201);
    const issue = res.json().data.issue;
    expect(issue.errorCodes).toEqual([code, 'C1']);
    expect(issue.pctDetails).toBeNull();
    const bad = await create({ labelTask: tasks[3], errorCodes: [{ category: 'Geometry', key: 'C9' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('errorCodes[0].key');
    const noKey = await create({ labelTask: tasks[3], errorCodes: [{ name: 'no key' }] });
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json().errors[0].field).toMatch(/^errorCodes\[0\]/);

    const pctDetails = { frame: 3, position: { x: 1.5, y: -2, z: 0.25 }, sensor: 'lidar-top' };
    const upd = await t.call('POST', `/v2/issues/${issue._id}`, { body: { pctDetails } });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data.issue).toMatchObject({ pctDetails, errorCodes: [code, 'C1'], content: issue.content });
    const listed = (await t.call('GET', `/v2/issues?labelTask=${tasks[3]}`)).json().data.issues;
    expect(listed.find((i: { _id: string }) => i._id === issue._id).pctDetails).toEqual(pctDetails);
    const notObject = await t.call('POST', `/v2/issues/${issue._id}`, { body: { pctDetails: 'x' } });
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().errors[0].field).toBe('pctDetails');
    await t.call('DELETE', `/v2/issues/${issue._id}`);
  });

  it('asks every issue for a code while codes are enabled and declared', async () => {
    const before = await openCount(tasks[3]);
    const none = await create({ labelTask: tasks[3] });
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0]).toEqual({
      field: 'errorCodes',
      message: 'this project asks every issue for one of its error codes (errorSchema)',
    });
    expect(await openCount(tasks[3])).toBe(before);
    // Codes turned off, issues need none again (the tests below raise plain issues).
    await t.call('POST', `/v2/project/${projectId}`, { body: { errorCodesEnabled: false } });
    const plain = await create({ labelTask: tasks[3] });
    expect(plain.statusCode, plain.body).toBe(201);
    await t.call('DELETE', `/v2/issues/${plain.json().data.issue._id}`);
  });

  it('keeps openIssuesCount exact through resolve, reopen and delete', async () => {
    const list = (await t.call('GET', `/v2/issues?labelTask=${tasks[1]}`)).json().data;
    expect(list.total).toBe(2);
    const [first, second] = list.issues.map((i: { _id: string }) => i._id);
    const resolve = await t.call('POST', `/v2/issues/${first}`, { body: { status: 'Resolved' } });
    expect(resolve.json().data.issue.status).toBe('Resolved');
    expect(await openCount(tasks[1])).toBe(1);
    await t.call('POST', `/v2/issues/${first}`, { body: { status: 'Resolved', content: 'Fixed it' } });
    expect(await openCount(tasks[1])).toBe(1);
    await t.call('POST', `/v2/issues/${first}`, { body: { status: 'Open' } });
    expect(await openCount(tasks[1])).toBe(2);
    const codes = await t.call('POST', `/v2/issues/${first}`, { body: { errorCodes: [] } });
    expect(codes.json().data.issue).toMatchObject({ errorCodes: [], content: 'Fixed it' });
    const del = await t.call('DELETE', `/v2/issues/${second}?project=${projectId}`);
    expect(del.statusCode).toBe(200);
    expect(del.json().data.issue).toMatchObject({ _id: second, deleted: true });
    expect(await openCount(tasks[1])).toBe(1);
    expect((await t.call('DELETE', `/v2/issues/${second}`)).statusCode).toBe(404);
    await t.call('DELETE', `/v2/issues/${first}`);
    expect(await openCount(tasks[1])).toBe(0);
    const gone = await t.call('POST', `/v2/issues/${first}`, { body: { status: 'Open' } });
    expect(gone.statusCode).toBe(404);
    expect(await openCount(tasks[1])).toBe(0);
  });

  it('keeps the count exact under concurrent changes to one task', async () => {
    const before = await openCount(tasks[3]);
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create({ labelTask: tasks[3], content: `c${i}` })),
    );
    expect(made.every((r) => r.statusCode === 201)).toBe(true);
    expect(await openCount(tasks[3])).toBe(before + 20);
    const ids = made.map((r) => r.json().data.issue._id as string);
    const changes = await Promise.all(
      ids.map((id, i) =>
        i % 2 === 0
          ? t.call('DELETE', `/v2/issues/${id}`)
          : t.call('POST', `/v2/issues/${id}`, { body: { status: 'Resolved' } }),
      ),
    );
    expect(changes.every((r) => r.statusCode === 200)).toBe(true);
    expect(await openCount(tasks[3])).toBe(before);
  });

  it('refuses bad updates with the field named', async () => {
    const id = (await create({ labelTask: tasks[3] })).json().data.issue._id;
    const cases: [Record<string, unknown>, string][] = [
      [{ status: 'Closed' }, 'status'],
      [{ content: ' ' }, 'content'],
      // Codes are off on this project now (see above): any code is refused.
      [{ errorCodes: ['NOPE'] }, 'errorCodes'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', `/v2/issues/${id}`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].field).toBe(field);
    }
    expect((await t.call('POST', `/v2/issues/${id}`, { body: {} })).statusCode).toBe(400);
    const wrongProject = await t.call('DELETE', `/v2/issues/${id}?project=ffffffffffffffffffffffff`);
    expect(wrongProject.statusCode).toBe(404);
  });

  it('comments on an issue', async () => {
    const id = (await create({ labelTask: tasks[3], content: 'Missing car' })).json().data.issue._id;
    const res = await t.call('POST', `/v2/issues/${id}/comment`, { body: { content: 'Added it' } });
    expect(res.statusCode).toBe(200);
    await t.call('POST', `/v2/issues/${id}/comment`, { body: { content: 'Thanks' } });
    const comments = (await t.call('GET', `/v2/issues?labelTask=${tasks[3]}`))
      .json()
      .data.issues.find((i: { _id: string }) => i._id === id).comments;
    expect(comments.map((c: { content: string }) => c.content)).toEqual(['Added it', 'Thanks']);
    expect(comments[0]).toMatchObject({ createdBy: 'admin@annotary.local' });
    const blank = await t.call('POST', `/v2/issues/${id}/comment`, { body: { content: '' } });
    expect(blank.json().errors[0].field).toBe('content');
  });

  it('lists with filters and pagination', async () => {
    const all = (await t.call('GET', `/v2/issues?project=${projectId}&limit=100`)).json().data;
    expect(all.total).toBe(all.issues.length);
    const created = all.issues.map((i: { createdAt: string }) => i.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
    const page = (await t.call('GET', `/v2/issues?project=${projectId}&limit=2&page=2&sort=createdAt`)).json().data;
    expect(page.issues).toHaveLength(2);
    expect(page.total).toBe(all.total);
    const byTask = (await t.call('GET', `/v2/issues?project=${projectId}&labelTask=${tasks[0]}`)).json().data;
    expect(byTask.total).toBe(3);
    const asset = byTask.issues[0].asset;
    expect((await t.call('GET', `/v2/issues?project=${projectId}&asset=${asset}`)).json().data.total).toBe(3);
    expect((await t.call('GET', `/v2/issues?project=${projectId}&stage=Label`)).json().data.total).toBe(all.total);
    expect((await t.call('GET', `/v2/issues?project=${projectId}&stage=Complete`)).json().data.total).toBe(0);
    const resolved = (await t.call('GET', `/v2/issues?project=${projectId}&status=Resolved&limit=100`)).json().data;
    const open = (await t.call('GET', `/v2/issues?project=${projectId}&status=Open`)).json().data;
    expect(resolved.issues.every((i: { status: string }) => i.status === 'Resolved')).toBe(true);
    expect(resolved.total).toBeGreaterThan(0);
    expect(resolved.total + open.total).toBe(all.total);
    const mine = await t.call('GET', `/v2/issues?project=${projectId}&createdBy=Admin@Annotary.local`);
    expect(mine.json().data.total).toBe(all.total);
    for (const [query, field] of [
      ['', 'project'],
      [`project=${projectId}&limit=101`, 'limit'],
      [`project=${projectId}&page=0`, 'page'],
      [`project=${projectId}&status=Closed`, 'status'],
      [`project=${projectId}&sort=content`, 'sort'],
    ]) {
      const res = await t.call('GET', `/v2/issues?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().errors[0].field).toBe(field);
    }
    expect((await t.call('GET', '/v2/issues?labelTask=ffffffffffffffffffffffff')).statusCode).toBe(404);
  });
  it('enforces the roles of DECISIONS section 2 on every issue route', async () => {
    const { key } = users;
    const ownerIssue = (await create({ labelTask: tasks[2], content: 'Owner on c' })).json().data.issue._id;
    const otherIssue = (await create({ labelTask: tasks[0], content: 'Owner on a' })).json().data.issue._id;
    const status = async (method: string, url: string, k: string, body?: unknown) =>
      (await t.call(method, url, { key: k, ...(body === undefined ? {} : { body }) })).statusCode;

    // Labeler: issues on their own tasks; changes only to issues they created.
    expect((await create({ labelTask: tasks[0] }, key.Labeler)).statusCode).toBe(403);
    const labIssue = (await create({ labelTask: tasks[2], content: 'Mine' }, key.Labeler)).json().data.issue._id;
    expect(labIssue).toBeDefined();
    const seen = (await t.call('GET', `/v2/issues?project=${projectId}&limit=100`, { key: key.Labeler })).json().data;
    expect(seen.issues.every((i: { labelTask: string }) => i.labelTask === tasks[2])).toBe(true);
    expect(seen.issues.map((i: { _id: string }) => i._id)).toEqual(expect.arrayContaining([ownerIssue, labIssue]));
    expect(await status('POST', `/v2/issues/${labIssue}`, key.Labeler, { status: 'Resolved' })).toBe(200);
    expect(await status('POST', `/v2/issues/${ownerIssue}`, key.Labeler, { status: 'Resolved' })).toBe(403);
    expect(await status('POST', `/v2/issues/${ownerIssue}/comment`, key.Labeler, { content: 'ok' })).toBe(200);
    expect(await status('POST', `/v2/issues/${otherIssue}/comment`, key.Labeler, { content: 'hi' })).toBe(403);
    expect(await status('DELETE', `/v2/issues/${ownerIssue}`, key.Labeler)).toBe(403);
    expect(await status('DELETE', `/v2/issues/${labIssue}`, key.Labeler)).toBe(200);

    // Reviewer: reads every issue, creates on any task, changes only its own.
    const revIssue = (await create({ labelTask: tasks[0] }, key.Reviewer)).json().data.issue._id;
    const all = (await t.call('GET', `/v2/issues?project=${projectId}`)).json().data.total;
    expect((await t.call('GET', `/v2/issues?project=${projectId}`, { key: key.Reviewer })).json().data.total).toBe(all);
    expect(await status('POST', `/v2/issues/${ownerIssue}`, key.Reviewer, { content: 'x' })).toBe(403);
    expect(await status('DELETE', `/v2/issues/${ownerIssue}`, key.Reviewer)).toBe(403);
    expect(await status('POST', `/v2/issues/${revIssue}`, key.Reviewer, { status: 'Resolved' })).toBe(200);

    // Lead, Manager and an org admin (acting as Manager) change and delete any issue.
    expect(await status('POST', `/v2/issues/${ownerIssue}`, key.Lead, { status: 'Resolved' })).toBe(200);
    expect(await status('DELETE', `/v2/issues/${revIssue}`, key.Lead)).toBe(200);
    expect(await status('POST', `/v2/issues/${ownerIssue}`, key.Manager, { status: 'Open' })).toBe(200);
    expect((await create({ labelTask: tasks[3] }, key.Manager)).statusCode).toBe(201);
    expect(await status('POST', `/v2/issues/${ownerIssue}/comment`, key.admin, { content: 'seen' })).toBe(200);
    expect((await create({ labelTask: tasks[3] }, key.admin)).statusCode).toBe(201);
    expect(await status('GET', `/v2/issues?project=${projectId}`, key.admin)).toBe(200);

    // Not on the project: nothing exists.
    expect((await create({ labelTask: tasks[0] }, key.outsider)).statusCode).toBe(404);
    expect(await status('GET', `/v2/issues?project=${projectId}`, key.outsider)).toBe(404);
    expect(await status('GET', `/v2/issues?labelTask=${tasks[0]}`, key.outsider)).toBe(404);
    expect(await status('POST', `/v2/issues/${ownerIssue}`, key.outsider, { status: 'Resolved' })).toBe(404);
    expect(await status('POST', `/v2/issues/${ownerIssue}/comment`, key.outsider, { content: 'x' })).toBe(404);
    expect(await status('DELETE', `/v2/issues/${ownerIssue}`, key.outsider)).toBe(404);
    expect(await status('DELETE', `/v2/issues/${otherIssue}`, key.admin)).toBe(200);
    for (const id of [tasks[0], tasks[2], tasks[3]]) await openCount(id);
  });
});
