import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { startWorker } from '../../src/server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { SCENE_CAMERA, scenePoints, writeKittiBin, writeLas, writePcd } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Point-cloud assets imported as URLs (`editorType: "pct"`, lidar frames in `dataset`, cameras in
 * `pct`): stored with their frame count and sensors, then each frame's point count read from its
 * header in the background, over Range requests from a real server on 127.0.0.1 (a .bin frame's
 * count from its length). A malformed header, an empty frame and one of 50 million points leave a
 * warning in words; bad cameras and frames are refused naming the field.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function serve(files: Record<string, Buffer>) {
  const server = http.createServer((req, res) => {
    const body = files[(req.url ?? '').slice(1)];
    if (!body) return res.writeHead(404).end();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (!m) return res.writeHead(200, { 'content-length': body.length }).end(body);
    const part = body.subarray(Number(m[1]), Number(m[2]) + 1);
    res.writeHead(206, { 'content-range': `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${body.length}` });
    return res.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const frames = [0, 1, 2].map((f) => scenePoints(f));
const files: Record<string, Buffer> = {
  'drive/000000.pcd': writePcd(frames[0]!, 'binary_compressed'),
  'drive/000001.bin': writeKittiBin(frames[1]!),
  'drive/000002.las': writeLas(frames[2]!, '1.4'),
  'bad.pcd': Buffer.from('VERSION 0.7\nFIELDS x y z\n'),
  'empty.pcd': Buffer.from(
    'VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 0\nHEIGHT 1\nPOINTS 0\nDATA binary\n',
  ),
  'huge.pcd': Buffer.from(
    'VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 50000000\nHEIGHT 1\nPOINTS 50000000\nDATA binary\n',
  ),
};

describe.each(ENGINES)('point-cloud assets on %s', (engine) => {
  let media: Awaited<ReturnType<typeof serve>>;
  let t: TestApp;
  let worker: JobWorker;
  let pid: string;
  let assets: Record<string, Json> = {};
  const camera = (base: string) => ({
    ...SCENE_CAMERA,
    images: [0, 1, 2].map((f) => `${base}/front/00000${f}.jpg`),
  });

  beforeAll(async () => {
    media = await serve(files);
    t = await makeTestApp(engine, {
      env: { ANNOTARY_READ_ASSET_HEADERS: 'true', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    worker = startWorker(t.ctx);
    const created = await t.call('POST', '/v2/project', { body: { name: 'Drives', type: 'pct' } });
    expect(created.statusCode, created.body).toBe(201);
    pid = created.json().data.project._id;
    const one = (name: string) => ({
      data: `${media.url}/${name}`,
      dataset: [`${media.url}/${name}`],
      editorType: 'pct',
    });
    const drive = ['000000.pcd', '000001.bin', '000002.las'].map((n) => `${media.url}/drive/${n}`);
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          {
            data: drive[0],
            dataset: drive,
            editorType: 'pct',
            externalId: 'drive',
            pct: { cameras: [camera(media.url)] },
          },
          { ...one('bad.pcd'), externalId: 'bad' },
          { ...one('empty.pcd'), externalId: 'empty' },
          { ...one('huge.pcd'), externalId: 'huge' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    await waitFor(
      async () => {
        const listed = await t.call('GET', `/v2/project/${pid}/assets?limit=100`);
        assets = Object.fromEntries((listed.json().data.assets as Json[]).map((a) => [a.externalId, a]));
        return Object.values(assets).every((a) => a.metadata?.pointsPerFrame || a.mediaWarning);
      },
      'every point cloud to have its point counts or a warning',
      30_000,
      250,
    );
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await media?.close();
  });

  it('stores the frames, the sensors and the cameras, and reads each frame’s point count from its header', () => {
    const drive = assets.drive!;
    expect(drive.mediaWarning ?? null).toBeNull();
    expect(drive.dataset).toHaveLength(3);
    expect(drive.metadata.frameTotal).toBe(3);
    expect(drive.metadata).not.toHaveProperty('pageTotal');
    expect(drive.metadata.pointsPerFrame).toEqual(frames.map((f) => f.length));
    expect(drive.metadata.pct.sensors).toEqual([
      { name: 'lidar', kind: 'lidar' },
      { name: 'front', kind: 'camera' },
    ]);
    expect(drive.metadata.pct.cameras[0]).toEqual(camera(media.url));
  });

  it('leaves a warning in words for a malformed header, an empty frame and a frame past the limit', () => {
    expect(assets.bad!.mediaWarning).toBe(
      'lidar frame 0 (bad.pcd): the PCD header has no DATA line in its first 64 KiB',
    );
    expect(assets.empty!.mediaWarning).toBe('lidar frame 0 (empty.pcd): the frame has no points');
    expect(assets.huge!.mediaWarning).toBe(
      'lidar frame 0 (huge.pcd): the frame has 50,000,000 points, more than the 20,000,000 a frame may have',
    );
  });

  it('refuses bad cameras and frames naming the field, writing nothing', async () => {
    const base = {
      data: `${media.url}/drive/000000.pcd`,
      dataset: [`${media.url}/drive/000000.pcd`],
      editorType: 'pct',
    };
    const cam = { ...SCENE_CAMERA, images: [`${media.url}/front/000000.jpg`] };
    const cases: [Json, string, RegExp][] = [
      [{ ...base, dataset: undefined }, 'assets[0].dataset', /lidar frames/],
      [{ ...base, dataset: ['https://x.example/a.laz'] }, 'assets[0].dataset[0]', /LAZ/],
      [{ ...base, dataset: ['https://x.example/a.txt'] }, 'assets[0].dataset[0]', /not .pcd, .bin, .ply or .las/],
      [
        { ...base, pct: { cameras: [{ ...cam, extrinsics: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }] } },
        'assets[0].pct.cameras[0].extrinsics',
        /does not invert/,
      ],
      [
        { ...base, pct: { cameras: [{ ...cam, images: [] }] } },
        'assets[0].pct.cameras[0].images',
        /one image URL per lidar frame/,
      ],
      [
        { ...base, pct: { cameras: [{ ...cam, images: ['ftp://x/y.jpg'] }] } },
        'assets[0].pct.cameras[0].images[0]',
        /http/,
      ],
      [{ ...base, pct: { cameras: [{ ...cam, name: 'lidar' }] } }, 'assets[0].pct.cameras[0].name', /another sensor/],
      [
        { ...base, pct: { cameras: [{ ...cam, intrinsics: { ...cam.intrinsics, fy: -1 } }] } },
        'assets[0].pct.cameras[0].intrinsics.fy',
        /greater than 0/,
      ],
      [{ ...base, metadata: { frameTotal: 7 } }, 'assets[0].metadata.frameTotal', /number of lidar frames/],
    ];
    for (const [asset, field, message] of cases) {
      const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
        body: { assets: [{ ...asset, externalId: 'x' }] },
      });
      expect(res.statusCode, res.body).toBe(400);
      const error = (res.json().errors as Json[]).find((e) => e.field === field);
      expect(error?.message, `${field} in ${res.body}`).toMatch(message);
      expect(res.body).not.toMatch(/stack|SELECT/i);
    }
    const listed = await t.call('GET', `/v2/project/${pid}/assets?limit=100`);
    expect(listed.json().data.assets).toHaveLength(4);
  });

  describe('answers', () => {
    const car = (objectId: string, page: number, x: number, extra: Json = {}) => ({
      objectId,
      schemaId: 'car',
      tool: 'pct',
      markingTool: 'cuboid',
      page,
      cuboid: { center: { x, y: 2, z: 0.75 }, dimensions: { length: 4, width: 2, height: 1.5 }, yaw: 0.3 },
      ...extra,
    });
    let taskId: string;
    const annotate = (answer: Json, nextStage = false) =>
      t.call('POST', `/v2/annotate/${taskId}${nextStage ? '?nextStage=true' : ''}`, { body: { answer } });

    beforeAll(async () => {
      const categorySchema = {
        tools: [
          { schemaId: 'car', title: 'Car', tool: 'pct', markingTools: ['cuboid', 'rectangle', 'polygon'] },
          { schemaId: 'road', title: 'Road', tool: 'pct', markingTools: ['polygon'] },
        ],
      };
      const pctConfig = {
        allowOverlapping: false,
        segmentationMode: true,
        segmentationValidation: { enabled: true, completeCoverage: 50 },
      };
      const res = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema, pctConfig } });
      expect(res.statusCode, res.body).toBe(200);
      taskId =
        assets.drive!.task?._id ??
        (await t.call('GET', `/v2/project/${pid}/tasks?limit=100&fields=externalId`))
          .json()
          .data.tasks.find((x: Json) => x.externalId === 'drive')._id;
    });

    it('keeps cuboid tracks, camera rectangles and point labels as sent', async () => {
      const n = frames[0]!.length;
      const answer = {
        tools: [
          car('a', 0, 8),
          car('a', 2, 9, { interpolationStopped: true }),
          car('b', 0, 14),
          {
            objectId: 'r',
            schemaId: 'car',
            tool: 'pct',
            markingTool: 'rectangle',
            page: 1,
            sensor: 'front',
            box: { x: 10, y: 20, width: 30, height: 40 },
          },
        ],
        pointLabels: [{ page: 0, classes: ['car', 'road'], runs: [n - 100, 2, 100, 1] }],
      };
      const res = await annotate(answer);
      expect(res.statusCode, res.body).toBe(200);
      const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
      expect(task.answer.tools).toEqual(answer.tools);
      expect(task.answer.pointLabels).toEqual(answer.pointLabels);
    });

    it('refuses entries that break the shape or the pctConfig rules, naming the field', async () => {
      const n = frames[0]!.length;
      const cases: [Json, string, RegExp][] = [
        [
          { tools: [car('a', 0, 8), car('b', 0, 9)] },
          'answer.tools[1].cuboid',
          /overlaps answer.tools\[0\] on frame 0/,
        ],
        [
          {
            tools: [
              car('a', 0, 8, {
                cuboid: { center: { x: 1, y: 2, z: 3 }, dimensions: { length: 0, width: 1, height: 1 }, yaw: 0 },
              }),
            ],
          },
          'answer.tools[0].cuboid',
          /greater than 0/,
        ],
        [{ tools: [car('a', 0, 8, { cuboid: { center: { x: 'a' } } })] }, 'answer.tools[0].cuboid', /finite numbers/],
        [{ tools: [car('a', 3, 8)] }, 'answer.tools[0].page', /below 3/],
        [{ tools: [car('a', 0, 8, { markingTool: 'sphere' })] }, 'answer.tools[0].markingTool', /must be one of/],
        [{ tools: [{ ...car('a', 0, 8), schemaId: 'road' }] }, 'answer.tools[0].markingTool', /draws only polygon/],
        [
          {
            tools: [
              {
                objectId: 'r',
                schemaId: 'car',
                tool: 'pct',
                markingTool: 'rectangle',
                page: 0,
                sensor: 'rear',
                box: { x: 1, y: 1, width: 2, height: 2 },
              },
            ],
          },
          'answer.tools[0].sensor',
          /no camera "rear"/,
        ],
        [
          {
            tools: [
              {
                objectId: 'p',
                schemaId: 'car',
                tool: 'pct',
                markingTool: 'polygon',
                page: 0,
                points: [{ x: 1, y: 2, z: 3 }],
              },
            ],
          },
          'answer.tools[0].points',
          /3 points or more/,
        ],
        [{ tools: [car('a', 0, 8, { instanceId: 1.5 })] }, 'answer.tools[0].instanceId', /whole number/],
        [
          { pointLabels: [{ page: 0, classes: ['car'], runs: [5, 1] }] },
          'answer.pointLabels[0].runs',
          new RegExp(`cover 5 points; frame 0 has ${n}`),
        ],
        [
          { pointLabels: [{ page: 0, classes: ['tree'], runs: [n, 1] }] },
          'answer.pointLabels[0].classes[0]',
          /no pct tool/,
        ],
        [
          { pointLabels: [{ page: 0, classes: ['car'], runs: [n, 2] }] },
          'answer.pointLabels[0].runs[0]',
          /class indexes 0 to 1/,
        ],
      ];
      for (const [answer, field, message] of cases) {
        const res = await annotate(answer);
        expect(res.statusCode, res.body).toBe(400);
        const error = (res.json().errors as Json[]).find((e) => e.field === field);
        expect(error?.message, `${field} in ${res.body}`).toMatch(message);
      }
      // The answer saved before is kept.
      expect((await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer.tools).toHaveLength(4);
    });

    it('refuses a submit while less than the coverage is labelled, and takes one that reaches it', async () => {
      const counts = frames.map((f) => f.length);
      const labels = (share: number) =>
        counts.map((c, page) => ({
          page,
          classes: ['road'],
          runs: [Math.ceil(c * share), 1, c - Math.ceil(c * share), 0],
        }));
      const low = await annotate({ pointLabels: labels(0.4) }, true);
      expect(low.statusCode, low.body).toBe(400);
      expect(low.json().errors[0]).toMatchObject({
        field: 'answer.pointLabels',
        message: expect.stringMatching(/frame 0 has 40\.\d% of its points labelled; at least 50% must be/),
      });
      const ok = await annotate({ pointLabels: labels(0.5) }, true);
      expect(ok.statusCode, ok.body).toBe(200);
    });
  });
});
