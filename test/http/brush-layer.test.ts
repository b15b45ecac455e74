import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The task's brush layer: a PNG of the image's size uploaded by whoever may annotate the task,
 * saved with POST /annotate beside the answer, answered back as a link that serves the same
 * pixels; anything that is not such a PNG of our store or the organization's storages refused.
 */

const W = 40;
const H = 30;

/** A transparent layer with the class colour over columns 5..14 of rows 10..19. */
function layer(width = W, height = H): Buffer {
  const png = new PNG({ width, height });
  for (let y = 10; y < 20; y++) {
    for (let x = 5; x < 15; x++) png.data.set([255, 0, 0, 255], (y * width + x) * 4);
  }
  return PNG.sync.write(png);
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

describe.each(ENGINES)('brush layer on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskId: string;
  let users: RoleUsers;

  const upload = (body: Buffer | string, key?: string, id = taskId) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/task/${id}/brush`,
      headers: { apikey: key ?? t.ownerKey, 'content-type': 'image/png' },
      payload: body,
    });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Brush' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/a.png', metadata: { width: W, height: H } }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    taskId = imported.json().data.assets[0].taskId;
    users = await addRoleUsers(t, projectId, engine);
  });
  afterAll(() => t.close());

  it('stores an uploaded layer, saves it as a draft beside the answer and reads the same pixels back', async () => {
    const up = await upload(layer());
    expect(up.statusCode, up.body).toBe(200);
    const { brushDataUrl } = up.json().data as { brushDataUrl: string };
    expect(brushDataUrl).toMatch(new RegExp(`/files/\\d+/[^/]+/${projectId}/brushes/`));
    // The upload alone changes nothing on the task.
    expect((await t.call('GET', `/v2/task/${taskId}`)).json().data.task.brushDataUrl).toBeNull();

    const saved = await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: {}, brushDataUrl } });
    expect(saved.statusCode, saved.body).toBe(200);
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.isDraft).toBe(true);
    expect(task.brushDataUrl).toMatch(/\/files\//);

    const read = await t.app.inject({ method: 'GET', url: pathOf(task.brushDataUrl as string) });
    expect(read.statusCode).toBe(200);
    const png = PNG.sync.read(read.rawPayload);
    expect([png.width, png.height]).toEqual([W, H]);
    const at = (x: number, y: number) => [...png.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 4)];
    expect(at(6, 12)).toEqual([255, 0, 0, 255]);
    expect(at(0, 0)).toEqual([0, 0, 0, 0]);
    expect(at(20, 25)).toEqual([0, 0, 0, 0]);

    // A brush link alone keeps the saved answer; an empty link removes the layer.
    const cleared = await t.call('POST', `/v2/annotate/${taskId}`, { body: { brushDataUrl: '' } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.task.brushDataUrl).toBeNull();
  });

  it('refuses an upload that is not a PNG of the image size, naming the body', async () => {
    for (const [body, message] of [
      ['not an image at all', /not a PNG/],
      [layer(W + 1, H), /40x30/],
      [layer(W, H - 1), /40x30/],
    ] as const) {
      const res = await upload(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'body', message: expect.stringMatching(message) }]);
    }
  });

  it('lets only those who may annotate the task upload a layer', async () => {
    // The Labeler is not the task's assignee; the outsider cannot see the project.
    expect((await upload(layer(), users.key.Labeler)).statusCode).toBe(403);
    expect((await upload(layer(), users.key.outsider)).statusCode).toBe(404);
    expect((await upload(layer(), users.key.Reviewer)).statusCode).toBe(200);
  });

  it('refuses a brushDataUrl that is not a PNG of the image size in our store or the organization storages', async () => {
    const before = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    // A text file of this project in our store, through the ordinary upload link.
    const q = `project=${projectId}&name=notes.png&type=brushes`;
    const { uploadUrl, readUrl } = (await t.call('GET', `/v2/getUploadUrl?${q}`)).json().data;
    expect((await t.app.inject({ method: 'PUT', url: pathOf(uploadUrl), payload: 'plain text' })).statusCode).toBe(200);
    // A PNG of another size, put there the same way.
    const other = (await t.call('GET', `/v2/getUploadUrl?${q}`)).json().data;
    await t.app.inject({ method: 'PUT', url: pathOf(other.uploadUrl), payload: layer(W * 2, H * 2) });
    // A layer of another project.
    const p2 = (await t.call('POST', '/v2/project', { body: { name: 'Other' } })).json().data.project._id;
    const q2 = `project=${p2}&name=l.png&type=brushes`;
    const foreign = (await t.call('GET', `/v2/getUploadUrl?${q2}`)).json().data;
    await t.app.inject({ method: 'PUT', url: pathOf(foreign.uploadUrl), payload: layer() });

    const cases: [string, RegExp][] = [
      ['https://cdn.example.com/brush.png', /file store/],
      ['http://127.0.0.1:9/files/1/2/x.png', /file store/],
      ['not a url', /file store/],
      [readUrl as string, /not a PNG/],
      [other.readUrl as string, /80x60 PNG.*40x30/],
      [foreign.readUrl as string, /not a file of this project/],
    ];
    for (const [brushDataUrl, message] of cases) {
      const res = await t.call('POST', `/v2/annotate/${taskId}`, { body: { brushDataUrl } });
      expect(res.statusCode, `${brushDataUrl} ${res.body}`).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'brushDataUrl', message: expect.stringMatching(message) }]);
    }
    // Nothing half-written: the task is as it was.
    const after = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(after.brushDataUrl).toBe(before.brushDataUrl);
    expect(after.answer).toEqual(before.answer);
  });
});
