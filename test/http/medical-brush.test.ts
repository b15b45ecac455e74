import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The task's voxel layer (`medical-brush`): a `.seg.nrrd` of the volume's size uploaded by whoever
 * may annotate the task, saved as `medicalBrushDataUrl` on annotate and on pre-label import,
 * answered back as signed links (task, export) that serve the same voxels; anything else refused
 * with the field named.
 */

const X = 8;
const Y = 6;
const Z = 4;

/**
 * A segmentation: class 3 in the voxels x 2..4, y 1..2, z 1..2; gzip unless told. `cut` bytes
 * taken off the file's end, `extra` voxels more (or fewer) than its sizes need, `crc` a gzip
 * check sum that does not match.
 */
function seg(
  sizes = [X, Y, Z],
  opts: { type?: string; encoding?: string; cut?: number; extra?: number; crc?: boolean } = {},
): Buffer {
  const [x, y, z = 1] = sizes as [number, number, number?];
  const voxels = Buffer.alloc(x * y * z + (opts.extra ?? 0));
  for (let k = 1; k <= 2; k++)
    for (let j = 1; j <= 2; j++)
      for (let i = 2; i <= 4; i++) if (i < x && j < y && k < z) voxels[k * x * y + j * x + i] = 3;
  const encoding = opts.encoding ?? 'gzip';
  const header =
    `NRRD0004\ntype: ${opts.type ?? 'uchar'}\ndimension: ${sizes.length}\nsizes: ${sizes.join(' ')}\n` +
    `encoding: ${encoding}\nendian: little\n\n`;
  const data = encoding === 'gzip' ? gzipSync(voxels) : voxels;
  // The CRC-32 is the trailer's first four bytes.
  if (opts.crc) data.writeUInt32LE(data.readUInt32LE(data.length - 8) ^ 1, data.length - 8);
  return Buffer.concat([Buffer.from(header, 'latin1'), data.subarray(0, data.length - (opts.cut ?? 0))]);
}

/** Our own reader: the voxels of a gzip `.seg.nrrd` of one byte per voxel. */
function voxelsOf(file: Buffer): { sizes: number[]; voxels: Buffer } {
  const end = file.indexOf('\n\n');
  const header = file.subarray(0, end).toString('latin1');
  const sizes = (/^sizes: (.*)$/m.exec(header)?.[1] ?? '').split(' ').map(Number);
  return { sizes, voxels: gunzipSync(file.subarray(end + 2)) };
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

describe.each(ENGINES)('medical brush layer on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskIds: string[];

  const upload = (body: Buffer | string, id = taskIds[0] as string) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/task/${id}/medical-brush`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
      payload: body,
    });
  const task = async (i: number) => (await t.call('GET', `/v2/task/${taskIds[i]}`)).json().data.task;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Scans' } })).json().data.project._id;
    const ontology = { tools: [{ schemaId: '3', title: 'Liver', tool: 'medical-brush', color: '#00FF00' }] };
    // Tasks wait in Start, where pre-labels are taken.
    const stages = [
      { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
      { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
      { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
    ];
    const set = await t.call('POST', `/v2/project/${projectId}`, { body: { stages, categorySchema: ontology } });
    expect(set.statusCode, set.body).toBe(200);
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/ct.nrrd', metadata: { width: X, height: Y, pageTotal: Z } },
          { data: 'https://cdn.example.com/mr.nrrd', metadata: { width: X, height: Y, pageTotal: Z + 1 } },
        ],
      },
    });
    expect(imported.statusCode, imported.body).toBe(201);
    taskIds = (imported.json().data.assets as { taskId: string }[]).map((a) => a.taskId);
  });
  afterAll(() => t.close());

  it('takes only whole-number class ids for medical-brush tools', async () => {
    const bad = { tools: [{ schemaId: 'liver', title: 'Liver', tool: 'medical-brush', color: '#00FF00' }] };
    const res = await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: bad } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'categorySchema.tools[0].schemaId', message: expect.stringMatching(/whole number from 1 to 65535/) },
    ]);
  });

  it('stores an uploaded layer, saves it on annotate and serves the same voxels through task and export links', async () => {
    const up = await upload(seg());
    expect(up.statusCode, up.body).toBe(200);
    const link = up.json().data.medicalBrushDataUrl as string;
    expect(link).toMatch(new RegExp(`/files/\\d+/[^/]+/${projectId}/brushes/.*\\.seg\\.nrrd`));
    expect((await task(0)).medicalBrushDataUrl).toBeNull();

    const saved = await t.call('POST', `/v2/annotate/${taskIds[0]}`, { body: { medicalBrushDataUrl: link } });
    expect(saved.statusCode, saved.body).toBe(200);
    const read = (await task(0)).medicalBrushDataUrl as string;
    expect(read).toMatch(/\/files\//);
    const file = await t.app.inject({ method: 'GET', url: pathOf(read) });
    expect(file.statusCode).toBe(200);
    const { sizes, voxels } = voxelsOf(file.rawPayload);
    expect(sizes).toEqual([X, Y, Z]);
    expect(voxels[1 * X * Y + 1 * X + 2]).toBe(3);
    expect(voxels[2 * X * Y + 2 * X + 4]).toBe(3);
    expect(voxels[0]).toBe(0);
    expect([...voxels].filter((v) => v === 3)).toHaveLength(12);

    const res = await t.call('GET', `/v2/exportV3?project=${projectId}&format=json`);
    expect(res.statusCode, res.body).toBe(200);
    const zip = await t.app.inject({ method: 'GET', url: pathOf(res.json().data.exportPath as string) });
    const items = JSON.parse((await unzip(zip.rawPayload))[0]?.text ?? '[]') as {
      task: { taskId: string; medicalBrushDataUrl: string | null };
    }[];
    const exported = items.find((i) => i.task.taskId === taskIds[0])?.task.medicalBrushDataUrl as string;
    expect(voxelsOf((await t.app.inject({ method: 'GET', url: pathOf(exported) })).rawPayload).voxels).toEqual(voxels);
    expect(items.find((i) => i.task.taskId === taskIds[1])?.task.medicalBrushDataUrl).toBeNull();

    // An empty link removes the layer and keeps the answer.
    const cleared = await t.call('POST', `/v2/annotate/${taskIds[0]}`, { body: { medicalBrushDataUrl: '' } });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json().data.task.medicalBrushDataUrl).toBeNull();
  });

  it('refuses an upload that is not a whole .seg.nrrd of the volume size, naming the body', async () => {
    const cases: [Buffer | string, RegExp][] = [
      ['not a volume', /not an NRRD/],
      [seg([X, Y, Z + 1]), /8x6x5 volume.*8x6x4/],
      [seg([X, Y]), /2 dimensions/],
      [seg([X, Y, Z], { type: 'float' }), /float samples/],
      [seg([X, Y, Z], { encoding: 'bzip2' }), /encoding "bzip2"/],
      [seg([X, Y, Z], { cut: 10 }), /gzip data/],
      [seg([X, Y, Z], { crc: true }), /gzip data that does not unpack/],
      [seg([X, Y, Z], { extra: -1 }), /191 bytes of voxels; its sizes need 192/],
      [seg([X, Y, Z], { extra: 1 }), /gzip data that does not unpack to the 192 bytes/],
      [seg([X, Y, Z], { encoding: 'raw', cut: 1 }), /191 bytes of voxels; its sizes need 192/],
    ];
    for (const [body, message] of cases) {
      const res = await upload(body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'body', message: expect.stringMatching(message) }]);
    }
    // A raw layer of the right size is taken too.
    expect((await upload(seg([X, Y, Z], { encoding: 'raw' }))).statusCode).toBe(200);
  });

  it('refuses a medicalBrushDataUrl of another size, or not ours, on annotate and on pre-label import', async () => {
    const before = await task(1);
    // A layer of the first volume's size, which the second (one slice more) is not.
    const small = (await upload(seg())).json().data.medicalBrushDataUrl as string;
    for (const [value, message] of [
      [small, /8x6x4 volume.*8x6x5/],
      ['https://cdn.example.com/seg.nrrd', /file store/],
    ] as const) {
      const res = await t.call('POST', `/v2/annotate/${taskIds[1]}`, { body: { medicalBrushDataUrl: value } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'medicalBrushDataUrl', message: expect.stringMatching(message) }]);
    }
    const pre = await t.call('POST', '/v2/import/labels', {
      body: {
        project: projectId,
        jsonContent: [
          { externalId: 'ct.nrrd', objects: [], medicalBrushDataUrl: small },
          { externalId: 'mr.nrrd', objects: [], medicalBrushDataUrl: small },
          { externalId: 'mr.nrrd', objects: [], medicalBrushDataUrl: 5 },
        ],
      },
    });
    expect(pre.statusCode, pre.body).toBe(400);
    expect(pre.json().errors).toEqual([{ field: 'jsonContent[2].medicalBrushDataUrl', message: 'must be a string' }]);
    const pre2 = await t.call('POST', '/v2/import/labels', {
      body: {
        project: projectId,
        jsonContent: [
          { externalId: 'ct.nrrd', objects: [], medicalBrushDataUrl: small },
          { externalId: 'mr.nrrd', objects: [], medicalBrushDataUrl: small },
        ],
      },
    });
    expect(pre2.statusCode, pre2.body).toBe(400);
    expect(pre2.json().errors).toEqual([
      { field: 'jsonContent[1].medicalBrushDataUrl', message: expect.stringMatching(/8x6x4 volume.*8x6x5/) },
    ]);
    expect((await task(1)).updatedAt).toBe(before.updatedAt);

    // The good item alone is taken, and the task answers a fresh link of it.
    const ok = await t.call('POST', '/v2/import/labels', {
      body: { project: projectId, jsonContent: [{ externalId: 'ct.nrrd', objects: [], medicalBrushDataUrl: small }] },
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data, ok.body).toMatchObject({ imported: 1, skipped: [] });
    const link = (await task(0)).medicalBrushDataUrl as string;
    const file = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(voxelsOf(file.rawPayload).sizes).toEqual([X, Y, Z]);
  });
});
