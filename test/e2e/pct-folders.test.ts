import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { startWorker } from '../../src/server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { createEmulatorStorages } from '../helpers/emulator-storages.js';
import { fillBucket, fillContainer, startAzurite, startS3rver } from '../helpers/emulators.js';
import { SCENE_CAMERA, sceneKittiCalib, scenePoints, writeKittiBin, writePcd } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Point-cloud assets imported from a storage folder (`data: "<bucket>/<folder>"`, `storage`,
 * `editorType: "pct"`) on real S3 (s3rver) and Azure (Azurite) servers: lidar/ frames in name
 * order, a camera per folder with images of the frames' base names, calibration/ in our JSON form
 * or KITTI's calib.txt (the image size read from the camera's first image). The stored asset is
 * the URL form with storage links, and its frames' point counts are read through those links.
 * Folders that cannot be read are refused naming the field, with nothing written.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const png = (width: number, height: number) => PNG.sync.write(new PNG({ width, height }));
const frames = [0, 1].map((f) => scenePoints(f));
const { images: _unused, ...cameraOnly } = { ...SCENE_CAMERA, images: [] };
const calibrationJson = JSON.stringify({ cameras: [cameraOnly] });
const image = png(640, 480);

const OBJECTS: Record<string, string | Buffer> = {
  // Frame names sort as numbers: 2 before 10.
  'run1/lidar/2.pcd': writePcd(frames[0]!, 'binary'),
  'run1/lidar/10.pcd': writePcd(frames[1]!, 'ascii'),
  'run1/front/2.png': image,
  'run1/front/10.png': image,
  'run1/calibration/calibration.json': calibrationJson,
  'run1/notes.txt': 'beside the sub-folders: not part of the asset',
  'kitti/lidar/000000.bin': writeKittiBin(frames[0]!),
  'kitti/image_2/000000.png': image,
  'kitti/calibration/000000.txt': sceneKittiCalib(),
  'nolidar/front/000000.png': image,
  'gap/lidar/000000.pcd': writePcd(frames[0]!, 'binary'),
  'gap/lidar/000001.pcd': writePcd(frames[1]!, 'binary'),
  'gap/front/000000.png': image,
  'gap/calibration/calibration.json': calibrationJson,
  'nocal/lidar/000000.pcd': writePcd(frames[0]!, 'binary'),
  'nocal/front/000000.png': image,
  'badcal/lidar/000000.pcd': writePcd(frames[0]!, 'binary'),
  'badcal/front/000000.png': image,
  'badcal/calibration/c.json': JSON.stringify({
    cameras: [{ ...cameraOnly, extrinsics: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }],
  }),
  'notjson/lidar/000000.pcd': writePcd(frames[0]!, 'binary'),
  'notjson/front/000000.png': image,
  'notjson/calibration/c.json': '{"cameras": [',
  'laz/lidar/000000.laz': 'LASF',
};

let s3: Awaited<ReturnType<typeof startS3rver>>;
let azurite: Awaited<ReturnType<typeof startAzurite>>;

beforeAll(async () => {
  [s3, azurite] = await Promise.all([startS3rver(), startAzurite()]);
  await fillBucket(s3.client, 'drives', OBJECTS);
  await fillContainer(azurite.client, 'drives', OBJECTS);
}, 60_000);
afterAll(async () => {
  await Promise.all([s3?.stop(), azurite?.stop()]);
});

describe.each(ENGINES)('point-cloud folders on %s', (engine) => {
  let t: TestApp;
  let worker: JobWorker;
  let pid: string;
  const storages: Record<string, string> = {};

  const importFolder = (asset: Json) => t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets: [asset] } });
  const listAssets = async () =>
    Object.fromEntries(
      ((await t.call('GET', `/v2/project/${pid}/assets?limit=100`)).json().data.assets as Json[]).map((a) => [
        a.externalId,
        a,
      ]),
    );

  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: {
        ANNOTARY_DEFAULT_PLAN: 'enterprise',
        ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
        ANNOTARY_READ_ASSET_HEADERS: 'true',
      },
    });
    worker = startWorker(t.ctx);
    Object.assign(storages, await createEmulatorStorages(t, s3, azurite));
    const res = await t.call('POST', '/v2/project', { body: { name: 'Folders', type: 'pct' } });
    expect(res.statusCode, res.body).toBe(201);
    pid = res.json().data.project._id;
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  for (const provider of ['s3', 'azure'] as const) {
    it(`${provider}: a folder with lidar/, a camera and calibration JSON becomes a pct asset`, async () => {
      const res = await importFolder({
        data: 'drives/run1/',
        storage: storages[provider],
        editorType: 'pct',
        externalId: `run1-${provider}`,
      });
      expect(res.statusCode, res.body).toBe(201);
      let asset: Json = {};
      await waitFor(
        async () => {
          asset = (await listAssets())[`run1-${provider}`]!;
          return Boolean(asset.metadata?.pointsPerFrame || asset.mediaWarning);
        },
        'the frames to be read through their storage links',
        30_000,
        250,
      );
      expect(asset.mediaWarning ?? null).toBeNull();
      // Read through the stored links: the frames are those of the folder, in numeric order.
      expect(asset.metadata.pointsPerFrame).toEqual(frames.map((f) => f.length));
      expect(asset.dataset).toHaveLength(2);
      expect(asset.dataset[0]).toContain('/run1/lidar/2.pcd');
      expect(asset.dataset[1]).toContain('/run1/lidar/10.pcd');
      expect(asset.data).toBe(asset.dataset[0]);
      expect(asset.metadata.frameTotal).toBe(2);
      expect(asset.metadata.pctFolder).toBe('drives/run1/');
      expect(asset.metadata.pct.sensors).toEqual([
        { name: 'lidar', kind: 'lidar' },
        { name: 'front', kind: 'camera' },
      ]);
      const cam = asset.metadata.pct.cameras[0];
      expect(cam).toMatchObject(cameraOnly);
      expect(cam.images.map((u: string) => u.replace(/\?.*$/, '').split('/').slice(-2).join('/'))).toEqual([
        'front/2.png',
        'front/10.png',
      ]);
      // A stored link answers the object (a redirect to a signed URL of the storage).
      const link = new URL(cam.images[1]);
      const got = await t.call('GET', link.pathname + link.search);
      expect([200, 302, 307]).toContain(got.statusCode);
    });
  }

  it("reads KITTI's calib.txt, the image size from the camera's first image", async () => {
    const res = await importFolder({ data: 'drives/kitti', storage: storages.s3, editorType: 'pct' });
    expect(res.statusCode, res.body).toBe(201);
    const asset = (await listAssets()).kitti!;
    expect(asset).toBeDefined();
    const cam = asset.metadata.pct.cameras[0];
    expect(cam.name).toBe('image_2');
    expect(cam.intrinsics).toEqual(SCENE_CAMERA.intrinsics);
    (cam.extrinsics as number[]).forEach((v, i) => expect(v).toBeCloseTo(SCENE_CAMERA.extrinsics[i]!, 9));
  });

  it('refuses folders that cannot be read, naming the field, writing nothing', async () => {
    const before = Object.keys(await listAssets()).length;
    const cases: [Json, string, RegExp][] = [
      [{ data: 'drives/run1' }, 'assets[0].storage', /names the storage/],
      [{ data: 'drives/run1', storage: '0123456789abcdef01234567' }, 'assets[0].storage', /no such storage/],
      [{ data: 'drives', storage: storages.s3 }, 'assets[0].data', /<bucket>\/<folder>/],
      [{ data: 'drives/nolidar', storage: storages.s3 }, 'assets[0].data', /no lidar\/ files/],
      [{ data: 'drives/nothing-here', storage: storages.s3 }, 'assets[0].data', /no lidar\/ files/],
      [{ data: 'drives/gap', storage: storages.s3 }, 'assets[0].data', /front\/ has no image named 000001/],
      [{ data: 'drives/nocal', storage: storages.s3 }, 'assets[0].data', /front\/ has no calibration/],
      [{ data: 'drives/badcal', storage: storages.s3 }, 'assets[0].data', /extrinsics: the matrix does not invert/],
      [{ data: 'drives/notjson', storage: storages.s3 }, 'assets[0].data', /calibration\/c.json is not JSON/],
      [{ data: 'drives/laz', storage: storages.s3 }, 'assets[0].dataset[0]', /LAZ/],
      [{ data: 'no-such-bucket/run1', storage: storages.s3 }, 'assets[0].data', /./],
    ];
    for (const [asset, field, message] of cases) {
      const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
        body: { assets: [{ externalId: 'run1-s3', editorType: 'pct', ...asset }].slice(0, 1) },
      });
      expect(res.statusCode, `${JSON.stringify(asset)}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
      const error = ((res.json().errors ?? []) as Json[]).find((e) => e.field === field);
      expect(error?.message, `${field} in ${res.body}`).toMatch(message);
      expect(res.body).not.toMatch(/stack|SELECT|S3RVER|Eby8/i);
    }
    // A good folder after a bad one in the same request: all or nothing.
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'drives/run1', storage: storages.s3, editorType: 'pct', externalId: 'fresh' },
          { data: 'drives/nolidar', storage: storages.s3, editorType: 'pct' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0].field).toBe('assets[1].data');
    expect(Object.keys(await listAssets())).toHaveLength(before);
  });
});
