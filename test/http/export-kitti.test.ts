import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { exportZip } from '../helpers/dataset-fixture.js';
import { listen } from '../helpers/files.js';
import { importPctTask } from '../helpers/pct-assets.js';
import { SCENE_CAMERA } from '../helpers/pointcloud-scene.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The KITTI export of a point-cloud project on both engines, read back from the zip and held to
 * numbers worked out here by hand: a cuboid track seen by the scene's front camera (x_cam = -y,
 * y_cam = 1.5 - z, z_cam = x; fx = fy = 500, cx = 320, cy = 240, 640 x 480) on its keyframes and
 * on the frame interpolated between them, a cuboid half out of the image, one behind the camera,
 * an asset without a camera (lidar coordinates), and a project of another type refused.
 */

const DRIVE = [0, 1, 2, 3].map((f) => `https://data.example/drive/00000${f}.pcd`);
// Two frames of one file name in two folders: the labels are named by frame number.
const NOCAM = ['https://data.example/nocam/a/frame.bin', 'https://data.example/nocam/b/frame.bin'];

const categorySchema = {
  tools: [
    {
      schemaId: 'car',
      title: 'Parked car',
      tool: 'pct',
      markingTools: ['cuboid', 'polygon'],
      classifications: [{ schemaId: 'moving', title: 'Moving', tool: 'checkbox', attributeMode: 'Time Varying' }],
    },
  ],
  classifications: [],
};

type Box = { x: number; y: number; z: number; l: number; w: number; h: number; yaw: number };
const cuboid = (b: Box) => ({
  center: { x: b.x, y: b.y, z: b.z },
  dimensions: { length: b.l, width: b.w, height: b.h },
  yaw: b.yaw,
});
const entry = (objectId: string, page: number, b: Box, extra: Record<string, unknown> = {}) => ({
  objectId,
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'cuboid',
  page,
  cuboid: cuboid(b),
  ...extra,
});

const KEY0: Box = { x: 10, y: 2, z: 0.8, l: 4, w: 2, h: 1.6, yaw: 0.5 };
const KEY2: Box = { x: 12, y: 1, z: 0.8, l: 4, w: 2, h: 1.6, yaw: 0.9 };
/** Halfway between the keyframes: what frame 1 shows. */
const MID: Box = { x: 11, y: 1.5, z: 0.8, l: 4, w: 2, h: 1.6, yaw: 0.7 };
/** Its left side beyond the image's left edge. */
const EDGE: Box = { x: 6, y: 5, z: 0.8, l: 2, w: 2, h: 1.6, yaw: 0 };
const BEHIND: Box = { x: -6, y: 0, z: 0.8, l: 4, w: 2, h: 1.6, yaw: 0 };

/** The scene camera by hand: a lidar point to the camera frame and to pixels. */
const cam = (p: { x: number; y: number; z: number }) => ({ x: -p.y, y: 1.5 - p.z, z: p.x });
const pix = (c: { x: number; y: number; z: number }) => [(500 * c.x) / c.z + 320, (500 * c.y) / c.z + 240] as const;

function cornersOf(b: Box) {
  const out: { x: number; y: number; z: number }[] = [];
  for (const [u, v] of [
    [1, 1],
    [-1, 1],
    [-1, -1],
    [1, -1],
  ] as const)
    for (const dz of [-1, 1]) {
      const du = (u * b.l) / 2;
      const dv = (v * b.w) / 2;
      out.push({
        x: b.x + du * Math.cos(b.yaw) - dv * Math.sin(b.yaw),
        y: b.y + du * Math.sin(b.yaw) + dv * Math.cos(b.yaw),
        z: b.z + (dz * b.h) / 2,
      });
    }
  return out;
}

/** The KITTI numbers of a box wholly in front of the camera: bottom centre, rotation, alpha, 2D box and truncation. */
function expected(b: Box) {
  const loc = cam({ x: b.x, y: b.y, z: b.z - b.h / 2 });
  // Heading (cos yaw, sin yaw, 0) in the camera is (-sin yaw, 0, cos yaw); KITTI's ry turns +x towards -z.
  let ry = Math.atan2(-Math.cos(b.yaw), -Math.sin(b.yaw));
  let alpha = ry - Math.atan2(loc.x, loc.z);
  const wrap = (a: number) => (a > Math.PI ? a - 2 * Math.PI : a <= -Math.PI ? a + 2 * Math.PI : a);
  ry = wrap(ry);
  alpha = wrap(alpha);
  const uv = cornersOf(b).map((p) => pix(cam(p)));
  const us = uv.map((p) => p[0]);
  const vs = uv.map((p) => p[1]);
  const whole = [Math.min(...us), Math.min(...vs), Math.max(...us), Math.max(...vs)] as const;
  const seen = [Math.max(0, whole[0]), Math.max(0, whole[1]), Math.min(640, whole[2]), Math.min(480, whole[3])];
  const area = (r: readonly number[]) => ((r[2] as number) - (r[0] as number)) * ((r[3] as number) - (r[1] as number));
  return { loc, ry, alpha, box: seen, truncated: 1 - area(seen) / area(whole) };
}

type Line = {
  type: string;
  truncated: number;
  occluded: number;
  alpha: number;
  box: number[];
  dims: number[];
  loc: number[];
  ry: number;
  fields: number;
};
function parseLines(text: string): Line[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const f = line.split(' ');
      const n = f.slice(1).map(Number);
      return {
        type: f[0] as string,
        truncated: n[0] as number,
        occluded: n[1] as number,
        alpha: n[2] as number,
        box: n.slice(3, 7),
        dims: n.slice(7, 10),
        loc: n.slice(10, 13),
        ry: n[13] as number,
        fields: f.length,
      };
    });
}

function expectLine(got: Line | undefined, b: Box) {
  const e = expected(b);
  expect(got).toBeDefined();
  const line = got as Line;
  expect(line.fields).toBe(15);
  expect(line.type).toBe('Parked_car');
  expect(line.occluded).toBe(0);
  expect(line.dims).toEqual([b.h, b.w, b.l]);
  line.loc.forEach((v, i) => expect(v).toBeCloseTo([e.loc.x, e.loc.y, e.loc.z][i] as number, 4));
  expect(line.ry).toBeCloseTo(e.ry, 4);
  expect(line.alpha).toBeCloseTo(e.alpha, 4);
  line.box.forEach((v, i) => expect(Math.abs(v - (e.box[i] as number))).toBeLessThanOrEqual(0.005));
  expect(Math.abs(line.truncated - e.truncated)).toBeLessThanOrEqual(0.005);
}

describe.each(ENGINES)('KITTI export on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let pid: string;
  let entries: Map<string, Buffer>;
  const text = (name: string) => {
    const bytes = entries.get(name);
    if (!bytes) throw new Error(`no ${name} in ${[...entries.keys()].join(', ')}`);
    return bytes.toString('utf8');
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const onServer = await listen(t.app);
    base = onServer('http://annotary.test');
    const created = await t.call('POST', '/v2/project', { body: { name: 'Lidar', type: 'pct' } });
    expect(created.statusCode, created.body).toBe(201);
    pid = created.json().data.project._id;
    const set = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema } });
    expect(set.statusCode, set.body).toBe(200);

    const drive = await importPctTask(t, pid, DRIVE, 'drives/drive-7');
    const saved = await t.call('POST', `/v2/annotate/${drive}`, {
      body: {
        answer: {
          tools: [
            entry('a', 0, KEY0, { classifications: [{ schemaId: 'moving', answer: ['yes'], page: 0 }] }),
            entry('a', 2, KEY2),
            entry('a', 3, KEY2, { interpolationStopped: true }),
            entry('edge', 0, EDGE),
            entry('behind', 1, BEHIND),
            {
              objectId: 'p',
              schemaId: 'car',
              tool: 'pct',
              markingTool: 'polygon',
              page: 0,
              points: [
                { x: 1, y: 0, z: 0 },
                { x: 2, y: 0, z: 0 },
                { x: 2, y: 1, z: 0 },
              ],
            },
          ],
        },
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: NOCAM[0], dataset: NOCAM, editorType: 'pct', externalId: 'nocam' }] },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    const nocam = imported.json().data.assets[0].taskId as string;
    const lidarOnly = await t.call('POST', `/v2/annotate/${nocam}`, {
      body: { answer: { tools: [entry('n', 1, { x: 5, y: -3, z: 1, l: 3, w: 1.5, h: 2, yaw: 3.5 })] } },
    });
    expect(lidarOnly.statusCode, lidarOnly.body).toBe(200);

    entries = (await exportZip(t, base, pid, 'kitti')).entries;
  });
  afterAll(() => t?.close());

  it('writes a label file per lidar frame of each asset, calibration beside the camera asset', () => {
    const names = (f: string[]) => f.map((n) => `drive-7/label_2/${n}.txt`);
    expect([...entries.keys()].sort()).toEqual(
      [
        ...names(['000000', '000001', '000002', '000003']),
        ...['000000', '000001', '000002', '000003'].map((n) => `drive-7/calib/${n}.txt`),
        'nocam/label_2/000000.txt',
        'nocam/label_2/000001.txt',
        'frame-sources.csv',
        'README.md',
      ].sort(),
    );
    const sources = text('frame-sources.csv').trim().split('\n');
    expect(sources[0]).toBe('label_file,frame,lidar_url,camera,image_url,asset_id,external_id');
    expect(sources[2]).toMatch(
      /^drive-7\/label_2\/000001\.txt,1,https:\/\/data\.example\/drive\/000001\.pcd,front,https:\/\/data\.example\/drive\/000001\.jpg,[^,]+,drives\/drive-7$/,
    );
    expect(sources[6]).toMatch(
      /^nocam\/label_2\/000001\.txt,1,https:\/\/data\.example\/nocam\/b\/frame\.bin,,,[^,]+,nocam$/,
    );
  });

  it('puts keyframes and the interpolated frame in the camera frame, with the projected box', () => {
    const f0 = parseLines(text('drive-7/label_2/000000.txt'));
    expect(f0).toHaveLength(2);
    expectLine(f0[0], KEY0);
    expect(f0[0]?.truncated).toBe(0);
    // Hand check of one value: frame 0's bottom centre (10, 2, 0) is (-2, 1.5, 10) in the camera.
    expect(f0[0]?.loc).toEqual([-2, 1.5, 10]);
    expect(f0[0]?.ry).toBeCloseTo(-0.5 - Math.PI / 2, 4);
    const f1 = parseLines(text('drive-7/label_2/000001.txt'));
    expect(f1.map((l) => l.loc[2])).toEqual([11, 6, -6]);
    expectLine(f1[0], MID);
    expectLine(parseLines(text('drive-7/label_2/000002.txt'))[0], KEY2);
    // The track stops on frame 3; the edge cuboid (a keyframe on frame 0) is held.
    const f3 = parseLines(text('drive-7/label_2/000003.txt'));
    expect(f3.map((l) => l.loc[2])).toEqual([6, -6]);
  });

  it('clips a box at the image edge and marks a cuboid behind the camera as unseen', () => {
    const edge = parseLines(text('drive-7/label_2/000000.txt'))[1];
    expectLine(edge, EDGE);
    expect(edge?.box[0]).toBe(0);
    expect(edge?.truncated).toBeGreaterThan(0.2);
    const behind = parseLines(text('drive-7/label_2/000001.txt'))[2] as Line;
    expect(behind.truncated).toBe(1);
    expect(behind.box).toEqual([0, 0, 0, 0]);
    expect(behind.loc).toEqual([0, 1.5, -6]);
  });

  it("writes KITTI's calib.txt that projects a lidar corner onto the label's box", () => {
    const rows = new Map(
      text('drive-7/calib/000001.txt')
        .trim()
        .split('\n')
        .map((l) => {
          const [k, v] = l.split(': ') as [string, string];
          return [k, v.split(' ').map(Number)];
        }),
    );
    expect(rows.get('R0_rect')).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(rows.get('Tr_velo_to_cam')).toEqual(SCENE_CAMERA.extrinsics.slice(0, 12));
    const p = rows.get('P2') as number[];
    const tr = rows.get('Tr_velo_to_cam') as number[];
    const corner = cornersOf(MID)[0] as { x: number; y: number; z: number };
    const c = [0, 1, 2].map(
      (r) => tr[r * 4]! * corner.x + tr[r * 4 + 1]! * corner.y + tr[r * 4 + 2]! * corner.z + tr[r * 4 + 3]!,
    );
    const q = [0, 1, 2].map((r) => p[r * 4]! * c[0]! + p[r * 4 + 1]! * c[1]! + p[r * 4 + 2]! * c[2]! + p[r * 4 + 3]!);
    const [u, v] = pix(cam(corner));
    expect(q[0]! / q[2]!).toBeCloseTo(u, 6);
    expect(q[1]! / q[2]!).toBeCloseTo(v, 6);
    const box = parseLines(text('drive-7/label_2/000001.txt'))[0]!.box;
    expect(u).toBeGreaterThanOrEqual(box[0]! - 0.01);
    expect(u).toBeLessThanOrEqual(box[2]! + 0.01);
  });

  it('keeps lidar coordinates for an asset without a camera', () => {
    expect(text('nocam/label_2/000000.txt')).toBe('');
    // Bottom centre (5, -3, 1 - 2 / 2), yaw 3.5 wrapped to 3.5 - 2 pi, alpha -10 (not given).
    expect(text('nocam/label_2/000001.txt')).toBe(
      `Parked_car 0.00 0 -10.0000 0.00 0.00 0.00 0.00 2.0000 1.5000 3.0000 5.0000 -3.0000 0.0000 ${(3.5 - 2 * Math.PI).toFixed(4)}\n`,
    );
  });

  it('counts in the README what KITTI labels cannot hold', () => {
    const readme = text('README.md');
    expect(readme).toContain('# KITTI object labels');
    expect(readme).toContain('- images (or frames): 6');
    // Frames 0, 1, 2 of the track, 4 of the edge cuboid, 3 of the one behind, 1 without a camera.
    expect(readme).toContain('- cuboids (one per frame shown): 11');
    expect(readme).toContain('- 4 polygon objects, counted per frame shown (KITTI labels hold cuboids)');
    expect(readme).toContain('objects with classification answers');
  });

  it('refuses a project of another type, naming the format', async () => {
    const other = await t.call('POST', '/v2/project', { body: { name: 'Photos', type: 'standard' } });
    expect(other.statusCode, other.body).toBe(201);
    const res = await t.call('GET', `/v2/export?project=${other.json().data.project._id}&format=kitti`);
    expect(res.statusCode).toBe(400);
    const error = res.json().errors[0];
    expect(error.field).toBe('format');
    expect(error.message).toContain('type pct');
  });
});
