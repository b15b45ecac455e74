import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importPctTask } from '../helpers/pct-assets.js';
import { type PctValidator, startPctValidator } from '../helpers/pct-validator.js';
import { SCENE_CAMERA } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * POST /task/{taskId}/pctValidation on both engines: the answer goes with the frames' links to the
 * project's external validator (a real one of the test's own on 127.0.0.1, checking the Secret
 * header and judging what it is sent: test/helpers/pct-validator.ts),
 * for every frame, the one `frameNumbers` names, or the frame in view; its verdict comes back.
 * Bad input names the field, and a validator that fails or is slow is a 502 in words.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SECRET = 'validator-s3cret';
const frameUrls = [0, 1, 2, 3].map((f) => `https://data.example/drive/00000${f}.pcd`);

const categorySchema = {
  tools: [{ schemaId: 'car', title: 'Car', tool: 'pct', markingTools: ['cuboid', 'polygon'] }],
  classifications: [{ schemaId: 'light', title: 'Light', tool: 'text', attributeMode: 'Time Varying' }],
};

const car = (objectId: string, page: number, x: number, height: number, extra: Json = {}) => ({
  objectId,
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'cuboid',
  page,
  cuboid: { center: { x, y: 2, z: 0.8 }, dimensions: { length: 4, width: 2, height }, yaw: 0.25 },
  ...extra,
});

/** Car a: keyframes on 0 and 2, gone from 3; car b (4 m tall) only on frame 3. */
const answer = {
  tools: [
    car('a', 0, 8, 1.5),
    car('a', 2, 9, 1.5),
    car('a', 3, 9, 1.5, { interpolationStopped: true }),
    car('b', 3, 20, 4),
  ],
  classifications: [{ schemaId: 'light', page: 1, answer: 'dusk' }],
};

describe.each(ENGINES)('pct external validation on %s', (engine) => {
  let t: TestApp;
  let v: PctValidator;
  let pid: string;
  let taskId: string;
  const validate = (body: Json) => t.call('POST', `/v2/task/${taskId}/pctValidation`, { body });
  const setExt = (ext: Json) =>
    t.call('POST', `/v2/project/${pid}`, { body: { pctConfig: { externalValidation: ext } } });

  beforeAll(async () => {
    v = await startPctValidator(SECRET);
    t = await makeTestApp(engine, {
      env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_PCT_VALIDATION_TIMEOUT_MS: '800' },
    });
    const created = await t.call('POST', '/v2/project', {
      body: {
        name: 'Validated',
        type: 'pct',
        pctConfig: { allowOverlapping: true, externalValidation: { enabled: true, apiUrl: v.url, secret: SECRET } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    pid = created.json().data.project._id;
    expect(created.json().data.project.pctConfig.externalValidation).toMatchObject({ apiUrl: v.url, hasSecret: true });
    expect(created.body).not.toContain(SECRET);
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema } })).statusCode).toBe(200);
    taskId = await importPctTask(t, pid, frameUrls);
  });
  afterAll(async () => {
    await t?.close();
    await v?.close();
  });

  it("sends every frame with the answer on it, signed, and answers the validator's verdict", async () => {
    const res = await validate({ answer });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.validation).toEqual({
      valid: false,
      frames: [0, 1, 2, 3],
      errors: [{ frame: 3, objectId: 'b', message: 'too tall: 4 m' }],
      message: 'checked 4 frames',
    });
    const call = v.calls.at(-1)!;
    expect(call.headers.secret).toBe(SECRET);
    expect(call.headers['user-agent']).toMatch(/^Annotary-PctValidation\//);
    expect(JSON.stringify(call)).not.toContain(t.ownerKey);
    expect(call.body).toMatchObject({ taskId, projectId: pid, externalId: 'd', frameTotal: 4 });
    expect(call.body.frames[1]).toEqual({
      frame: 1,
      lidar: frameUrls[1],
      images: { [SCENE_CAMERA.name]: frameUrls[1]!.replace('.pcd', '.jpg') },
    });
    // Car a is shown on frames 0 to 2 (frame 1 between its keyframes), not after its stop; b on 3.
    const shown = (call.body.answer.tools as Json[]).map((e) => [e.objectId, e.page]);
    expect(shown).toEqual([
      ['a', 0],
      ['a', 1],
      ['a', 2],
      ['b', 3],
    ]);
    expect((call.body.answer.classifications as Json[]).map((c) => [c.page, c.answer])).toEqual([
      [1, 'dusk'],
      [2, 'dusk'],
      [3, 'dusk'],
    ]);
    expect(call.body.categorySchema.tools[0].schemaId).toBe('car');
  });

  it('checks the saved answer when the body has none, and a valid one passes', async () => {
    const fine = { tools: [car('a', 0, 8, 1.5)] };
    expect((await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: fine } })).statusCode).toBe(200);
    const res = await validate({});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.validation).toMatchObject({ valid: true, errors: [], frames: [0, 1, 2, 3] });
    expect((v.calls.at(-1)!.body.answer.tools as Json[]).map((e) => e.page)).toEqual([0, 1, 2, 3]);
  });

  it('sends only the frame in view with singleFrame, and the one frameNumbers names with specificFrame', async () => {
    expect((await setExt({ enabled: true, apiUrl: v.url, singleFrame: true })).statusCode).toBe(200);
    const one = await validate({ answer, frame: 3 });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().data.validation).toMatchObject({ valid: false, frames: [3] });
    expect(v.calls.at(-1)!.body.frames.map((f: Json) => f.frame)).toEqual([3]);
    // The secret was kept by the write that left it out.
    expect(v.calls.at(-1)!.headers.secret).toBe(SECRET);
    expect((v.calls.at(-1)!.body.answer.tools as Json[]).map((e) => e.objectId)).toEqual(['b']);
    const noFrame = await validate({ answer });
    expect(noFrame.statusCode).toBe(400);
    expect(noFrame.json().errors[0].field).toBe('frame');
    const outside = await validate({ answer, frame: 4 });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().errors[0]).toEqual({ field: 'frame', message: 'must be a frame of the asset (0 to 3)' });

    expect((await setExt({ enabled: true, apiUrl: v.url, specificFrame: true, frameNumbers: '1' })).statusCode).toBe(
      200,
    );
    const specific = await validate({ answer, frame: 3 });
    expect(specific.statusCode, specific.body).toBe(200);
    expect(specific.json().data.validation).toMatchObject({ valid: true, frames: [1] });
    expect((v.calls.at(-1)!.body.answer.tools as Json[]).map((e) => [e.objectId, e.page])).toEqual([['a', 1]]);
    expect((await setExt({ enabled: true, apiUrl: v.url, specificFrame: true, frameNumbers: 9 })).statusCode).toBe(200);
    const beyond = await validate({ answer });
    expect(beyond.statusCode).toBe(409);
    expect(beyond.json().message).toMatch(/frameNumbers is frame 9; the asset's frames are 0 to 3/);
    expect((await setExt({ enabled: true, apiUrl: v.url })).statusCode).toBe(200);
  });

  it('refuses a bad answer or settings naming the field, and sends nothing', async () => {
    const before = v.calls.length;
    const bad = await validate({ answer: { tools: [car('a', 7, 8, 1.5)] } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('answer.tools[0].page');
    const negative = await validate({ answer: { tools: [car('a', 0, 8, -1)] } });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().errors[0].field).toMatch(/^answer\.tools\[0\]\.cuboid/);
    expect((await validate({ frame: -1 })).statusCode).toBe(400);
    const badUrl = await setExt({ enabled: true, apiUrl: 'ftp://validator.example/check' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json().errors).toEqual([
      { field: 'pctConfig.externalValidation.apiUrl', message: 'must be an http(s) URL' },
    ]);
    expect(v.calls.length).toBe(before);
  });

  it('says in words when the validator fails, answers nonsense or is slow', async () => {
    const cases: [PctValidator['mode'], number, RegExp][] = [
      ['error', 502, /answered HTTP 500/],
      ['not-json', 502, /did not answer JSON/],
      ['no-verdict', 502, /no "valid"/],
      ['hang', 502, /did not answer within 0.8 s/],
    ];
    for (const [mode, status, message] of cases) {
      v.mode = mode;
      const res = await validate({ answer });
      expect(res.statusCode, mode).toBe(status);
      expect(res.json().message).toMatch(message);
      expect(res.body).not.toContain(SECRET);
    }
    v.mode = 'judge';
    // A wrong secret is the validator's 401, answered as such.
    expect((await setExt({ enabled: true, apiUrl: v.url, secret: 'other' })).statusCode).toBe(200);
    expect((await validate({ answer })).json().message).toMatch(/answered HTTP 401/);
    expect((await setExt({ enabled: true, apiUrl: v.url, secret: SECRET })).statusCode).toBe(200);
  });

  it('is a 409 while the project has no external validation, and refuses private addresses unless allowed', async () => {
    expect((await setExt({ enabled: false, apiUrl: v.url })).statusCode).toBe(200);
    const off = await validate({ answer });
    expect(off.statusCode).toBe(409);
    expect(off.json().message).toMatch(/no external validation/);
    expect((await setExt({ enabled: true, apiUrl: v.url })).statusCode).toBe(200);

    const strict = await makeTestApp(engine);
    try {
      const p = await strict.call('POST', '/v2/project', {
        body: { name: 'Strict', type: 'pct', pctConfig: { externalValidation: { enabled: true, apiUrl: v.url } } },
      });
      const id = p.json().data.project._id;
      await strict.call('POST', `/v2/project/${id}`, { body: { categorySchema } });
      const imported = await strict.call('POST', `/v2/project/${id}/cloud`, {
        body: { assets: [{ data: frameUrls[0], dataset: frameUrls, editorType: 'pct' }] },
      });
      const task = imported.json().data.assets[0].taskId;
      const before = v.calls.length;
      const res = await strict.call('POST', `/v2/task/${task}/pctValidation`, { body: {} });
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toMatch(/could not be reached: .*(private|refused)/i);
      expect(v.calls.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
