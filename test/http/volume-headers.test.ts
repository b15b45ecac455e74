import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/server.js';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Imported volumes without a size get it from their file's head, read in the background over a
 * Range request from a real server on 127.0.0.1: a DICOM file's Rows, Columns and Number of
 * Frames (files made with pydicom, read up to the pixel data only), a series' slice size from
 * every file's head (a few at a time), an NRRD's sizes. A DICOM without pixel data, a file that
 * is not DICOM, and a series with files of another series, of another slice size or missing
 * leave a warning in words naming the file; a `.seg.nrrd` is not read. A voxel layer of another
 * size is then refused on annotate and on pre-label import, naming the field.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface DicomSpec {
  columns: number;
  rows: number;
  frames?: number;
  pixels?: boolean;
  /** The SeriesInstanceUID's last part (files of one series share it). */
  series?: number;
}

/**
 * DICOM files made by pydicom in one run, by name: `frames` frames of columns x rows, 16-bit, or
 * no pixel data.
 */
function dicoms(specs: Record<string, DicomSpec>): Record<string, Buffer> {
  const made = execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      `import base64, io, json, sys
import numpy as np
from pydicom.dataset import Dataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid, CTImageStorage
out = {}
for name, s in json.loads(sys.argv[1]).items():
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = CTImageStorage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset(); ds.file_meta = meta
    ds.SOPClassUID = CTImageStorage; ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.PatientName = 'Doe^Jane'; ds.PatientID = 'P-1'; ds.Modality = 'CT'
    ds.SeriesInstanceUID = '1.2.826.0.1.3680043.9.7433.%d' % s.get('series', 1)
    rows, columns, frames = s['rows'], s['columns'], s.get('frames', 1)
    ds.Rows = rows; ds.Columns = columns
    ds.SamplesPerPixel = 1; ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated = 16; ds.BitsStored = 16; ds.HighBit = 15; ds.PixelRepresentation = 0
    if frames > 1: ds.NumberOfFrames = frames
    if s.get('pixels', True):
        ds.PixelData = (np.arange(columns * rows * frames, dtype=np.uint16) % 4000).tobytes()
    b = io.BytesIO(); ds.is_little_endian = True; ds.is_implicit_VR = False; ds.save_as(b, write_like_original=False)
    out[name] = base64.b64encode(b.getvalue()).decode()
print(json.dumps(out))`,
      JSON.stringify(specs),
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const files = JSON.parse(made.toString('utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(files).map(([name, b64]) => [name, Buffer.from(b64, 'base64')]));
}

function nrrd(sizes: number[], name = 'short'): Buffer {
  const count = sizes.reduce((a, b) => a * b, 1);
  const header = `NRRD0004\ntype: ${name}\ndimension: ${sizes.length}\nsizes: ${sizes.join(' ')}\nencoding: raw\nendian: little\n\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(count * 2)]);
}

/** A gzip `.seg.nrrd` of x * y * z voxels, all of class 1. */
function seg(x: number, y: number, z: number): Buffer {
  const header = `NRRD0004\ntype: uchar\ndimension: 3\nsizes: ${x} ${y} ${z}\nencoding: gzip\nendian: little\n\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), gzipSync(Buffer.alloc(x * y * z, 1))]);
}

const MADE = dicoms({
  ct: { columns: 64, rows: 48 },
  multi: { columns: 256, rows: 128, frames: 12 },
  slice: { columns: 20, rows: 10 },
  otherSeries: { columns: 20, rows: 10, series: 2 },
  wide: { columns: 30, rows: 10 },
  nopixels: { columns: 64, rows: 48, pixels: false },
});
/** A series of LONG files, served slowly (DELAY_MS each) to see how many are read at once. */
const LONG = 20;
const DELAY_MS = 200;
const long = Array.from({ length: LONG }, (_, k) => `/long/${k + 1}.dcm`);

const FILES: Record<string, Buffer> = {
  '/ct.dcm': MADE.ct!,
  '/multi.dcm': MADE.multi!,
  '/series/1.dcm': MADE.slice!,
  '/series/2.dcm': MADE.slice!,
  '/series/3.dcm': MADE.slice!,
  '/other/4.dcm': MADE.otherSeries!,
  '/other/5.dcm': MADE.otherSeries!,
  '/wide/6.dcm': MADE.wide!,
  ...Object.fromEntries(long.map((p) => [p, MADE.slice!])),
  '/nopixels.dcm': MADE.nopixels!,
  '/photo.dcm': Buffer.from('\x89PNG\r\n\x1a\n not a scan at all, but long enough to pass the preamble'.repeat(4)),
  '/head.nrrd': nrrd([12, 10, 7]),
  '/flat.nrrd': nrrd([12, 10]),
  '/scan.seg.nrrd': seg(12, 10, 7),
};

interface Served {
  url: string;
  ranges: string[];
  /** The most requests for /long/ files open at once. */
  longAtOnce: number;
  close(): Promise<void>;
}

async function serve(): Promise<Served> {
  const ranges: string[] = [];
  let longOpen = 0;
  const served: Served = { url: '', ranges, longAtOnce: 0, close: async () => {} };
  const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = FILES[req.url ?? ''];
    if (!body) return res.writeHead(404).end('not found');
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (!m) return res.writeHead(200).end(body);
    const part = body.subarray(Number(m[1]), Number(m[2]) + 1);
    res.writeHead(206, { 'content-range': `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${body.length}` });
    return res.end(part);
  };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    ranges.push(`${path} ${req.headers.range ?? ''}`);
    if (!path.startsWith('/long/')) return answer(req, res);
    served.longAtOnce = Math.max(served.longAtOnce, ++longOpen);
    setTimeout(() => {
      longOpen -= 1;
      answer(req, res);
    }, DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return served;
}

/** Series imported as one asset each: the files of their `dataset`, the first as `data`. */
const SERIES: Record<string, string[]> = {
  series: ['/series/1.dcm', '/series/2.dcm', '/series/3.dcm'],
  'mixed-series': ['/series/1.dcm', '/other/4.dcm', '/series/2.dcm', '/other/5.dcm'],
  'mixed-size': ['/series/1.dcm', '/series/2.dcm', '/wide/6.dcm'],
  'missing-file': ['/series/1.dcm', '/series/gone.dcm', '/series/3.dcm'],
  long,
};

const SINGLE = ['ct.dcm', 'multi.dcm', 'nopixels.dcm', 'photo.dcm', 'head.nrrd', 'flat.nrrd', 'scan.seg.nrrd'];

describe.each(ENGINES)("volumes' sizes read from their headers on %s", (engine) => {
  let media: Served;
  let t: TestApp;
  let worker: JobWorker;
  let projectId: string;
  let assets: Record<string, Json> = {};
  let taskIds: Record<string, string> = {};

  const settled = (a: Json | undefined) => !!a && ((a.metadata?.width && a.metadata?.height) || a.mediaWarning);

  beforeAll(async () => {
    media = await serve();
    t = await makeTestApp(engine, {
      env: { ANNOTARY_READ_ASSET_HEADERS: 'true', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    worker = startWorker(t.ctx);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Volumes' } })).json().data.project._id;
    const ontology = { tools: [{ schemaId: '1', title: 'Liver', tool: 'medical-brush', color: '#00ff00' }] };
    const stages = [
      { id: 'Start', type: 'Start', next: ['Label'], autoForward: false },
      { id: 'Label', type: 'Label', next: ['Done'] },
      { id: 'Done', type: 'Complete' },
    ];
    const set = await t.call('POST', `/v2/project/${projectId}`, { body: { stages, categorySchema: ontology } });
    expect(set.statusCode, set.body).toBe(200);
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          ...SINGLE.map((name) => ({ data: `${media.url}/${name}`, externalId: name })),
          ...Object.entries(SERIES).map(([name, paths]) => ({
            data: `${media.url}${paths[0]}`,
            dataset: paths.map((p) => `${media.url}${p}`),
            externalId: name,
          })),
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const names = [...SINGLE, ...Object.keys(SERIES)];
    taskIds = Object.fromEntries((res.json().data.assets as Json[]).map((a, i) => [names[i], a.taskId as string]));
    await waitFor(
      async () => {
        const list = await t.call('GET', `/v2/project/${projectId}/assets?limit=100`);
        assets = Object.fromEntries((list.json().data.assets as Json[]).map((a) => [a.externalId, a]));
        return [...SINGLE.filter((n) => n !== 'scan.seg.nrrd'), ...Object.keys(SERIES)].every((n) =>
          settled(assets[n]),
        );
      },
      'every volume to have a size or a warning',
      20_000,
      250,
    );
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await media?.close();
  });

  it("reads DICOM rows, columns and frames, a series from its files' heads, and NRRD sizes", () => {
    const facts = (name: string) => {
      const m = assets[name]?.metadata ?? {};
      return [m.width, m.height, m.pageTotal];
    };
    expect(facts('ct.dcm')).toEqual([64, 48, 1]);
    expect(facts('multi.dcm')).toEqual([256, 128, 12]);
    expect(facts('series')).toEqual([20, 10, 3]);
    expect(facts('long')).toEqual([20, 10, LONG]);
    expect(facts('head.nrrd')).toEqual([12, 10, 7]);
    expect(facts('flat.nrrd')).toEqual([12, 10, 1]);
    expect(assets['ct.dcm']?.mediaWarning ?? null).toBeNull();
    // One range of the head, not the 768 KiB of the multi-frame file's pixel data.
    expect(media.ranges.filter((r) => r.startsWith('/multi.dcm '))).toEqual(['/multi.dcm bytes=0-524287']);
    // Every file of a series is read, its first 64 KiB only (the files are 10 KiB: all of it).
    for (const p of [...SERIES.series!, ...long]) {
      expect(media.ranges.filter((r) => r.startsWith(`${p} `))).toContain(`${p} bytes=0-65535`);
    }
    // A few at a time: several, never more than the job's eight.
    expect(media.longAtOnce).toBeGreaterThan(1);
    expect(media.longAtOnce).toBeLessThanOrEqual(8);
  });

  it('names the file of another series, of another slice size, or missing, of a series', () => {
    expect(assets['mixed-series']?.mediaWarning).toBe(
      'files of another series (SeriesInstanceUID) than 1.dcm: 4.dcm and 1 other file; a volume is one series',
    );
    expect(assets['mixed-size']?.mediaWarning).toBe(
      "files of another slice size than 1.dcm (20x10 pixels): 6.dcm (30x10); a volume's slices are one size",
    );
    expect(assets['missing-file']?.mediaWarning).toBe('gone.dcm: the address answered HTTP 404');
    for (const name of ['mixed-series', 'mixed-size', 'missing-file']) {
      expect(assets[name]?.metadata?.width, name).toBeUndefined();
    }
  });

  it('leaves a warning in words for a DICOM without pixel data or a file that is not DICOM, and skips a .seg.nrrd', () => {
    expect(assets['nopixels.dcm']?.mediaWarning).toBe('the DICOM file has no pixel data');
    expect(assets['nopixels.dcm']?.metadata?.width).toBeUndefined();
    expect(assets['photo.dcm']?.mediaWarning).toMatch(/not a DICOM file/);
    expect(assets['scan.seg.nrrd']?.metadata ?? {}).toEqual({});
    expect(assets['scan.seg.nrrd']?.mediaWarning ?? null).toBeNull();
    expect(media.ranges.some((r) => r.startsWith('/scan.seg.nrrd'))).toBe(false);
  });

  it("refuses a voxel layer that is not the read volume's size, on annotate and on pre-label import", async () => {
    const ct = taskIds['ct.dcm'] as string;
    const upload = (body: Buffer) =>
      t.app.inject({
        method: 'POST',
        url: `/v2/task/${ct}/medical-brush`,
        headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
        payload: body,
      });
    const wrong = await upload(seg(64, 48, 2));
    expect(wrong.statusCode, wrong.body).toBe(400);
    expect(wrong.json().errors).toEqual([{ field: 'body', message: expect.stringMatching(/64x48x2 volume.*64x48x1/) }]);

    // A layer of the multi-frame file's size, stored for that task, sent for the single slice.
    const multi = taskIds['multi.dcm'] as string;
    const other = await t.app.inject({
      method: 'POST',
      url: `/v2/task/${multi}/medical-brush`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
      payload: seg(256, 128, 12),
    });
    expect(other.statusCode, other.body).toBe(200);
    const link = other.json().data.medicalBrushDataUrl as string;
    const res = await t.call('POST', `/v2/annotate/${ct}`, { body: { medicalBrushDataUrl: link } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'medicalBrushDataUrl', message: expect.stringMatching(/256x128x12 volume.*64x48x1/) },
    ]);
    const pre = await t.call('POST', '/v2/import/labels', {
      body: { project: projectId, jsonContent: [{ externalId: 'ct.dcm', objects: [], medicalBrushDataUrl: link }] },
    });
    expect(pre.statusCode, pre.body).toBe(400);
    expect(pre.json().errors).toEqual([
      { field: 'jsonContent[0].medicalBrushDataUrl', message: expect.stringMatching(/256x128x12 volume.*64x48x1/) },
    ]);
    expect((await t.call('GET', `/v2/task/${ct}`)).json().data.task.medicalBrushDataUrl).toBeNull();

    const right = await upload(seg(64, 48, 1));
    expect(right.statusCode, right.body).toBe(200);
    const ok = await t.call('POST', `/v2/annotate/${ct}`, {
      body: { medicalBrushDataUrl: right.json().data.medicalBrushDataUrl },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
