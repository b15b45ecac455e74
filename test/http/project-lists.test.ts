import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * What the console's lists ask of the API beyond the contract: each project's live task counts
 * and the caller's role (listProjects?counts=true), archiving (`archived` on the update, and the
 * list's `archived` filter), and the project's history of exports (GET /project/{id}/exports).
 */

type Item = { _id: string; name: string; role?: string; archived?: boolean; progress?: Record<string, number> };

describe.each(ENGINES)('project lists on %s', (engine) => {
  let t: TestApp;
  let labelerKey = '';
  let busy = '';
  let quiet = '';

  const ok = async (method: string, url: string, body?: unknown, key = t.ownerKey) => {
    const res = await t.call(method, url, { key, ...(body === undefined ? {} : { body }) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json().data;
  };
  const list = async (query: string, key = t.ownerKey) =>
    (await ok('GET', `/v2/listProjects?limit=100&sort=name&${query}`, undefined, key)).projects as Item[];

  beforeAll(async () => {
    t = await makeTestApp(engine);
    busy = (await ok('POST', '/v2/project', { name: 'Busy' })).project._id;
    quiet = (await ok('POST', '/v2/project', { name: 'Quiet' })).project._id;
    await ok('POST', `/v2/project/${busy}/cloud`, {
      assets: ['a', 'b', 'c', 'd'].map((n) => ({ data: `https://example.com/${n}.jpg`, externalId: n })),
    });
    await ok('POST', `/v2/project/${busy}/requeueTasks`, { toStageId: 'Complete', filters: { externalIds: ['a'] } });
    labelerKey = await t.addUser('lab@example.com');
    await ok('POST', `/v2/project/${busy}/assigned`, { assignees: ['lab@example.com'], role: 'Labeler' });
  });
  afterAll(() => t.close());

  it('answers counts and the caller’s role only when asked, from the kept task counts', async () => {
    const plain = await list('');
    expect(plain.find((p) => p._id === busy)).not.toHaveProperty('progress');
    expect(plain.find((p) => p._id === busy)).not.toHaveProperty('role');
    const counted = await list('counts=true');
    expect(counted.find((p) => p._id === busy)).toMatchObject({
      role: 'Manager',
      progress: { tasks: 4, completed: 1, archived: 0 },
    });
    expect(counted.find((p) => p._id === quiet)?.progress).toEqual({ tasks: 0, completed: 0, archived: 0 });
  });

  it('gives a Labeler their role but not the counts, which need the right to read every task', async () => {
    const mine = await list('counts=True', labelerKey);
    expect(mine.map((p) => p.name)).toEqual(['Busy']);
    expect(mine[0]).toMatchObject({ role: 'Labeler' });
    expect(mine[0]).not.toHaveProperty('progress');
  });

  it('archives a project and brings it back; the list filters on it when asked, and lists both when not', async () => {
    const archived = (await ok('POST', `/v2/project/${quiet}`, { archived: true })).project;
    expect(archived).toMatchObject({ archived: true });
    expect(archived.archivedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await list('archived=false')).map((p) => p.name)).toEqual(['Busy']);
    expect((await list('archived=true')).map((p) => [p.name, p.archived])).toEqual([['Quiet', true]]);
    expect((await list('')).map((p) => p.name)).toEqual(['Busy', 'Quiet']);
    const refused = await t.call('POST', `/v2/project/${quiet}`, { key: labelerKey, body: { archived: false } });
    expect(refused.statusCode).toBe(404);
    const back = (await ok('POST', `/v2/project/${quiet}`, { archived: false })).project;
    expect(back.archived).toBe(false);
    expect(back).not.toHaveProperty('archivedAt');
    expect((await list('archived=false')).map((p) => p.name)).toEqual(['Busy', 'Quiet']);
    const bad = await t.call('GET', '/v2/listProjects?archived=maybe');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toContain('archived');
  });

  it('keeps the exports asked of a project, newest first, with a working link, for its Managers only', async () => {
    await ok('GET', `/v2/exportV3?project=${busy}&format=ndjson&status=Completed`);
    await ok('GET', `/v2/exportV3?project=${busy}&includeHistory=false`);
    const { exports, total } = await ok('GET', `/v2/project/${busy}/exports`);
    expect(total).toBe(2);
    expect(exports.map((e: { format: string }) => e.format)).toEqual(['json', 'ndjson']);
    expect(exports[0]).toMatchObject({
      createdBy: 'admin@annotary.local',
      type: 'task',
      filters: { includeHistory: 'false' },
      storage: false,
    });
    expect(exports[1].filters).toEqual({ status: 'Completed' });
    expect(exports[0].bytes).toBeGreaterThan(0);
    expect(Date.parse(exports[0].expiresAt)).toBeGreaterThan(Date.now());
    const download = await t.call('GET', new URL(exports[0].exportPath).pathname, { key: '' });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    // A Labeler may not export, nor see the exports made.
    const refused = await t.call('GET', `/v2/project/${busy}/exports`, { key: labelerKey });
    expect(refused.statusCode).toBe(403);
    expect((await ok('GET', `/v2/project/${quiet}/exports`)).total).toBe(0);
  });
});
