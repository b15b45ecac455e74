import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * Voxel layers (`medical-brush`, one `.seg.nrrd` per task) compared per class number: consensus
 * scores each class by the Dice of its voxels, the Quality page keeps it per class, and a
 * benchmark submission scores each class by Dice (IoU beside it) against the reference's layer.
 * Hand-made 8 x 6 x 4 volumes with known overlaps.
 */

const X = 8;
const Y = 6;
const Z = 4;
const ONTOLOGY = {
  tools: [
    { schemaId: '1', title: 'Liver', tool: 'medical-brush', color: '#00ff00' },
    { schemaId: '2', title: 'Kidney', tool: 'medical-brush', color: '#0000ff' },
  ],
};
const VOLUME = { width: X, height: Y, pageTotal: Z };

type Block = [value: number, x0: number, y0: number, z0: number, x1: number, y1: number, z1: number];

/** A gzip `.seg.nrrd` with each block [x0, x1) x [y0, y1) x [z0, z1) holding its class number. */
function seg(blocks: Block[], type = 'uchar'): Buffer {
  const voxels = Buffer.alloc(X * Y * Z * (type === 'uchar' ? 1 : 2));
  for (const [value, x0, y0, z0, x1, y1, z1] of blocks) {
    for (let z = z0; z < z1; z++)
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) {
          const at = z * X * Y + y * X + x;
          if (type === 'uchar') voxels[at] = value;
          else voxels.writeUInt16LE(value, at * 2);
        }
  }
  const header = `NRRD0004\ntype: ${type}\ndimension: 3\nsizes: ${X} ${Y} ${Z}\nencoding: gzip\nendian: little\n\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), gzipSync(voxels)]);
}

// Liver: 16 voxels each, 8 shared (Dice 1/2, IoU 1/3). Kidney: 6 against 8 of which 6 shared
// (Dice 12/14 = 6/7, IoU 6/8).
const FIRST = seg([
  [1, 0, 0, 0, 4, 2, 2],
  [2, 0, 0, 3, 3, 2, 4],
]);
const SECOND = seg(
  [
    [1, 2, 0, 0, 6, 2, 2],
    [2, 0, 0, 3, 4, 2, 4],
  ],
  'ushort',
);

describe.each(ENGINES)('voxel layers in consensus and benchmarks on %s', (engine) => {
  let t: TestApp;

  const upload = async (taskId: string, body: Buffer, key = t.ownerKey) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2/task/${taskId}/medical-brush`,
      headers: { apikey: key, 'content-type': 'application/octet-stream' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.medicalBrushDataUrl as string;
  };
  const project = async (name: string, body: Record<string, unknown>) => {
    const pid = (await t.call('POST', '/v2/project', { body: { name } })).json().data.project._id as string;
    const res = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY, ...body } });
    expect(res.statusCode, res.body).toBe(200);
    return pid;
  };
  const importOne = async (pid: string, name: string): Promise<string> => {
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: `https://cdn.example.com/${name}`, metadata: VOLUME }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets[0].taskId as string;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
  });
  afterAll(() => t.close());

  describe('consensus', () => {
    let pid: string;
    const copyIn = async (parent: string, stage: string): Promise<string> => {
      const res = await t.call('GET', `/v2/project/${pid}/tasks?limit=100&stage=${stage}`);
      return (res.json().data.tasks as { _id: string; parentTask: string }[]).find((c) => c.parentTask === parent)
        ?._id as string;
    };
    const submit = async (id: string, layer: Buffer | null) => {
      const medicalBrushDataUrl = layer ? await upload(id, layer) : undefined;
      const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, {
        body: { answer: {}, medicalBrushDataUrl },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    const round = async (name: string, first: Buffer | null, second: Buffer | null) => {
      const parent = await importOne(pid, name);
      await submit(await copyIn(parent, 'c1'), first);
      await submit(await copyIn(parent, 'c2'), second);
      return (await t.call('GET', `/v2/task/${parent}`)).json().data.task;
    };

    beforeAll(async () => {
      pid = await project('Voxels', { stages: consensusWorkflow({ threshold: 0.9, adjudicationMethod: 'first' }) });
    });

    it('scores each class by the Dice of its voxels and leaves by next[1] below the threshold', async () => {
      // (1/2 + 6/7) / 2 = 19/28, the second copy's layer of 16-bit samples.
      const parent = await round('ct-a.nrrd', FIRST, SECOND);
      expect(parent).toMatchObject({ stage: 'Disputed', consensusScore: 0.678571 });
    });

    it('agrees fully on equal layers, and a class given by one copy only scores 0', async () => {
      expect(await round('ct-b.nrrd', FIRST, FIRST)).toMatchObject({ stage: 'Done', consensusScore: 1 });
      // Liver the same (1), kidney only in the first (0); the second copy without a layer gives nothing.
      const liverOnly = seg([[1, 0, 0, 0, 4, 2, 2]]);
      expect(await round('ct-c.nrrd', FIRST, liverOnly)).toMatchObject({ stage: 'Disputed', consensusScore: 0.5 });
      expect(await round('ct-d.nrrd', FIRST, null)).toMatchObject({ stage: 'Disputed', consensusScore: 0 });
    });

    it('shows the Dice per class on the Quality page', async () => {
      const res = await t.call('POST', `/v2/project/${pid}/quality`, { body: {} });
      expect(res.statusCode, res.body).toBe(200);
      const agreement = res.json().data.agreement as {
        schemaId: string;
        measure: string;
        value: number;
        measures: number;
      }[];
      // Liver over four rounds: (1/2 + 1 + 1 + 0) / 4; kidney over four: (6/7 + 1 + 0 + 0) / 4.
      expect(agreement.map((a) => [a.schemaId, a.measure, a.value, a.measures])).toEqual([
        ['1', 'dice', 0.625, 4],
        ['2', 'dice', 0.4643, 4],
      ]);
    });
  });

  describe('benchmarks', () => {
    let pid: string;
    let benchmark: string;
    let labeler: { email: string; key: string };

    beforeAll(async () => {
      const stages = [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', type: 'Label', next: ['Done'] },
        { id: 'Done', type: 'Complete' },
      ];
      pid = await project('Voxel benchmarks', { stages });
      benchmark = await importOne(pid, 'bench.nrrd');
      await importOne(pid, 'other.nrrd');
      // The reference is the task's answer with its layer, as the Manager saved it.
      const saved = await t.call('POST', `/v2/annotate/${benchmark}`, {
        body: { answer: {}, medicalBrushDataUrl: await upload(benchmark, FIRST) },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const marked = await t.call('POST', `/v2/project/${pid}/benchmarks`, { body: { tasks: [benchmark] } });
      expect(marked.statusCode, marked.body).toBe(200);
      const on = await t.call('POST', `/v2/project/${pid}`, { body: { benchmarkEnabled: true, benchmarkRatio: 1 } });
      expect(on.statusCode, on.body).toBe(200);
      const email = `vox-${engine}@example.com`;
      labeler = { email, key: await t.addUser(email, 'member') };
      await t.call('POST', `/v2/project/${pid}/assigned`, { body: { assignees: [email], role: 'Labeler' } });
    });

    it("scores a submission's voxel layer per class by Dice, with IoU beside it", async () => {
      const next = await t.call('GET', `/v2/project/${pid}/next?stageId=Label`, { key: labeler.key });
      expect(next.json().data.task._id).toBe(benchmark);
      // The labeler handed the benchmark uploads their layer for it, though it is assigned to nobody.
      const mine = await upload(benchmark, SECOND, labeler.key);
      const bad = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
        body: { answer: {}, medicalBrushDataUrl: 'https://elsewhere.example.com/x.seg.nrrd' },
        key: labeler.key,
      });
      expect(bad.statusCode, bad.body).toBe(400);
      expect(bad.json().errors[0].field).toBe('medicalBrushDataUrl');
      const res = await t.call('POST', `/v2/annotate/${benchmark}?nextStage=true`, {
        body: { answer: {}, medicalBrushDataUrl: mine },
        key: labeler.key,
      });
      expect(res.statusCode, res.body).toBe(200);
      const subs = await t.call('GET', `/v2/project/${pid}/benchmarkSubmissions?labeler=${labeler.email}`);
      const [sub] = subs.json().data.submissions as { score: number; detail: Record<string, unknown>[] }[];
      // (1/2 + 6/7) / 2 * 100, rounded to 3 decimals.
      expect(sub?.score).toBe(67.857);
      expect(sub?.detail).toEqual([
        { schemaId: '1', kind: 'voxels', score: 0.5, dice: 0.5, iou: 1 / 3 },
        { schemaId: '2', kind: 'voxels', score: 6 / 7, dice: 6 / 7, iou: 0.75 },
      ]);
    });
  });
});
