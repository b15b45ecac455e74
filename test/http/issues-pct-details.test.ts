import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importPctTask } from '../helpers/pct-assets.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * An issue's pctDetails on both engines: what the client sends is kept, unknown keys included,
 * and the keys we know are checked (a frame of the task's asset, a 3D position of finite numbers,
 * objectId and sensor names), on create and on update, each refusal naming its field and
 * writing nothing. On an asset whose frames are not known, any whole frame is taken.
 */

type Json = Record<string, unknown>;
const frameUrls = [0, 1, 2, 3].map((f) => `https://data.example/drive/00000${f}.pcd`);
const DETAILS = {
  frame: 3,
  position: { x: 1.5, y: -2, z: 0.25 },
  objectId: 'car-7',
  sensor: 'lidar',
  camera: { yaw: 12, zoom: 2 },
};

describe.each(ENGINES)('issue pctDetails on %s', (engine) => {
  let t: TestApp;
  let pctTask: string;
  let imageTask: string;
  const create = (labelTask: string, pctDetails: unknown) =>
    t.call('POST', '/v2/issues', { body: { content: 'Cuboid misses the mirror', labelTask, pctDetails } });
  const issuesOf = async (labelTask: string) =>
    (await t.call('GET', `/v2/issues?labelTask=${labelTask}`)).json().data.issues as Json[];
  const refusal = (res: { statusCode: number; json(): { errors: { field: string; message: string }[] } }) => {
    expect(res.statusCode).toBe(400);
    return res.json().errors;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const pct = await t.call('POST', '/v2/project', { body: { name: 'Lidar', type: 'pct' } });
    expect(pct.statusCode, pct.body).toBe(201);
    pctTask = await importPctTask(t, pct.json().data.project._id, frameUrls);
    const image = (await t.call('POST', '/v2/project', { body: { name: 'Photos' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${image}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.jpg' }] },
    });
    imageTask = imported.json().data.assets[0].taskId;
  });
  afterAll(() => t?.close());

  it('keeps what the client sends, unknown keys included', async () => {
    const res = await create(pctTask, DETAILS);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.issue.pctDetails).toEqual(DETAILS);
    expect((await issuesOf(pctTask)).map((i) => i.pctDetails)).toEqual([DETAILS]);
  });

  it('refuses a frame beyond the asset, or that is not whole, naming the field and writing nothing', async () => {
    expect(refusal(await create(pctTask, { ...DETAILS, frame: 4 }))).toEqual([
      { field: 'pctDetails.frame', message: 'must be a frame of the asset (0 to 3)' },
    ]);
    expect(refusal(await create(pctTask, { frame: 1.5 }))[0]!.field).toBe('pctDetails.frame');
    expect(refusal(await create(pctTask, { frame: -1 }))[0]!.field).toBe('pctDetails.frame');
    expect(refusal(await create(pctTask, { frame: '2' }))[0]!.field).toBe('pctDetails.frame');
    expect(await issuesOf(pctTask)).toHaveLength(1);
    const task = (await t.call('GET', `/v2/task/${pctTask}`)).json().data.task;
    expect(task.openIssuesCount).toBe(1);
  });

  it('refuses a position that is not three finite numbers, naming the axis', async () => {
    expect(refusal(await create(pctTask, { position: { x: 1, y: 'a', z: 0 } }))).toEqual([
      { field: 'pctDetails.position.y', message: 'must be a finite number (metres)' },
    ]);
    expect(refusal(await create(pctTask, { position: { x: 1, y: 2 } })).map((e) => e.field)).toEqual([
      'pctDetails.position.z',
    ]);
    // JSON has no Infinity: a huge exponent is the nearest a client can send.
    const infinite = await t.call('POST', '/v2/issues', {
      body: `{"content": "far", "labelTask": "${pctTask}", "pctDetails": {"position": {"x": 1e999, "y": 0, "z": 0}}}`,
    });
    expect(refusal(infinite)[0]!.field).toBe('pctDetails.position.x');
    expect(refusal(await create(pctTask, { position: [1, 2, 3] }))[0]!.field).toBe('pctDetails.position');
    expect(refusal(await create(pctTask, { objectId: 7, sensor: '' })).map((e) => e.field)).toEqual([
      'pctDetails.objectId',
      'pctDetails.sensor',
    ]);
    expect(await issuesOf(pctTask)).toHaveLength(1);
  });

  it('checks an update the same way and keeps the stored details when it is refused', async () => {
    const [issue] = await issuesOf(pctTask);
    const update = (pctDetails: unknown) => t.call('POST', `/v2/issues/${issue!._id}`, { body: { pctDetails } });
    expect(refusal(await update({ frame: 9, position: { x: 0, y: 0, z: null } })).map((e) => e.field)).toEqual([
      'pctDetails.frame',
      'pctDetails.position.z',
    ]);
    expect((await issuesOf(pctTask))[0]!.pctDetails).toEqual(DETAILS);
    const moved = { ...DETAILS, frame: 0, position: { x: 3, y: 1, z: 0.5 } };
    const ok = await update(moved);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await issuesOf(pctTask))[0]!.pctDetails).toEqual(moved);
  });

  it('takes any whole frame on an asset whose frames are not known', async () => {
    const res = await create(imageTask, { frame: 40, position: { x: 0, y: 0, z: 0 } });
    expect(res.statusCode, res.body).toBe(201);
    expect(refusal(await create(imageTask, { frame: 0.5 }))[0]!.field).toBe('pctDetails.frame');
  });
});
