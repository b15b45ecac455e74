import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import yauzl from 'yauzl';
import type { TestApp } from './app.js';
import { download } from './exports.js';

/*
 * A project holding every tool kind the dataset formats know, for the export and import tests:
 * a 64 x 48 image with a box, a rotated box, a polygon, a polyline, a point, a segmentation zone
 * with a hole, an NER span and a brush layer (a PNG uploaded to the file store, as the editor
 * does), a video with a box track, and an image of unknown size.
 */

export const W = 64;
export const H = 48;
export const SKY = '#00ff00';

export const ONTOLOGY = {
  tools: [
    {
      schemaId: 'car',
      title: 'Car',
      tool: 'bounding-box',
      color: '#ff0000',
      classifications: [
        {
          schemaId: 'colour',
          title: 'Colour',
          tool: 'radio',
          options: [
            { schemaId: 'red', value: 'Red' },
            { schemaId: 'blue', value: 'Blue' },
          ],
        },
      ],
    },
    { schemaId: 'truck', title: 'Truck', tool: 'rotated-bounding-box', color: '#0000ff' },
    { schemaId: 'road', title: 'Road', tool: 'polygon', color: '#808080' },
    { schemaId: 'lane', title: 'Lane', tool: 'polyline', color: '#ffff00' },
    { schemaId: 'sign', title: 'Sign', tool: 'point', color: '#ff00ff' },
    { schemaId: 'field', title: 'Field', tool: 'segmentation', color: '#00ffff' },
    { schemaId: 'sky', title: 'Sky', tool: 'brush', color: SKY },
    { schemaId: 'span', title: 'Span', tool: 'ner', color: '#123456' },
  ],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        { schemaId: 'rain', value: 'Rainy' },
      ],
    },
  ],
};

export const IMAGE_TOOLS = [
  {
    schemaId: 'car',
    objectId: 'car-1',
    'bounding-box': { x: 4.5, y: 6, width: 20, height: 10 },
    classifications: [{ schemaId: 'colour', answer: 'red' }],
  },
  {
    schemaId: 'truck',
    objectId: 'truck-1',
    'rotated-bounding-box': { x: 30, y: 8, width: 16, height: 8, rotation: 30 },
  },
  {
    schemaId: 'road',
    objectId: 'road-1',
    polygon: [
      [2, 30],
      [30, 30],
      [30, 46],
      [2, 46],
    ],
  },
  {
    schemaId: 'lane',
    objectId: 'lane-1',
    polyline: [
      [0, 20],
      [63, 20],
    ],
  },
  { schemaId: 'sign', objectId: 'sign-1', point: [50.5, 5.25] },
  {
    schemaId: 'field',
    objectId: 'field-1',
    segmentation: {
      zones: [
        {
          region: [
            [34, 24],
            [62, 24],
            [62, 46],
            [34, 46],
          ],
          holes: [
            [
              [40, 30],
              [50, 30],
              [50, 40],
              [40, 40],
            ],
          ],
        },
      ],
    },
  },
  { schemaId: 'span', objectId: 'span-1', ner: { start: 0, end: 3 } },
];
/** Areas in pixels: box 200, rotated 128, polygon 448, zone 616 - 100, the brush band 64 x 4. */
export const AREAS = { car: 200, truck: 128, road: 448, field: 516, sky: 256 };

export const VIDEO_TOOLS = [
  { schemaId: 'car', objectId: 'v-car', page: 0, 'bounding-box': { x: 1, y: 2, width: 10, height: 10 } },
  { schemaId: 'car', objectId: 'v-car', page: 5, 'bounding-box': { x: 6, y: 2, width: 10, height: 10 } },
  {
    schemaId: 'car',
    objectId: 'v-car',
    page: 7,
    interpolationStopped: true,
    'bounding-box': { x: 8, y: 2, width: 10, height: 10 },
  },
];

/** A brush layer: the top 4 rows painted in the sky class's colour, the rest transparent. */
export function brushPng(): Buffer {
  const png = new PNG({ width: W, height: H });
  for (let y = 0; y < 4; y++) {
    for (let x = 0; x < W; x++) png.data.set([0, 255, 0, 255], (y * W + x) * 4);
  }
  return PNG.sync.write(png);
}

export interface DatasetProject {
  pid: string;
  tasks: { image: string; video: string; unsized: string };
}

/** Makes the project through the API; `onServer` maps a link of ours to the listening server. */
export async function datasetProject(t: TestApp, onServer: (url: string) => string): Promise<DatasetProject> {
  const pid = (await t.call('POST', '/v2/project', { body: { name: 'Datasets' } })).json().data.project._id as string;
  const set = await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } });
  if (set.statusCode !== 200) throw new Error(set.body);
  const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
    body: {
      assets: [
        { data: 'https://cdn.example.com/street.jpg', externalId: 'street.jpg', metadata: { width: W, height: H } },
        {
          data: 'https://cdn.example.com/drive.mp4',
          externalId: 'drive.mp4',
          metadata: { width: W, height: H, frameTotal: 10 },
        },
        { data: 'https://cdn.example.com/unsized.jpg', externalId: 'unsized.jpg' },
      ],
    },
  });
  const [image, video, unsized] = (imported.json().data.assets as { taskId: string }[]).map((a) => a.taskId);
  const upload = (await t.call('GET', `/v2/getUploadUrl?name=sky.png&project=${pid}&type=brushes`)).json().data
    .uploadUrl as string;
  const put = await fetch(onServer(upload), { method: 'PUT', body: brushPng() });
  if (put.status !== 200) throw new Error(await put.text());
  const annotate = async (taskId: string | undefined, body: unknown) => {
    const res = await t.call('POST', `/v2/annotate/${taskId}`, { body });
    if (res.statusCode !== 200) throw new Error(res.body);
  };
  await annotate(image, {
    answer: { tools: IMAGE_TOOLS, classifications: [{ schemaId: 'weather', answer: 'sun' }], relations: [] },
    brushDataUrl: upload,
  });
  await annotate(video, { answer: { tools: VIDEO_TOOLS, classifications: [], relations: [] } });
  await annotate(unsized, {
    answer: { tools: [{ schemaId: 'car', objectId: 'u', 'bounding-box': { x: 1, y: 1, width: 2, height: 2 } }] },
  });
  return { pid, tasks: { image: image as string, video: video as string, unsized: unsized as string } };
}

/** Every entry of a zip as bytes. */
export function unzipBytes(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const entries = new Map<string, Buffer>();
      zip.on('error', reject).on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c)).on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Exports the project in a format, downloads the zip (no key) and answers its entries. */
export async function exportZip(t: TestApp, base: string, pid: string, format: string) {
  const res = await t.call('GET', `/v2/export?project=${pid}&format=${format}`);
  if (res.statusCode !== 200) throw new Error(res.body);
  const got = await download(res.json().data.exportPath as string, base);
  if (got.status !== 200) throw new Error(`download: ${got.status}`);
  return { zip: got.body, entries: await unzipBytes(got.body) };
}

const run = promisify(execFile);
const CHECK = path.join(import.meta.dirname, 'python', 'dataset_check.py');

/** Writes each export's entries to a folder and reads them all with the independent Python reader. */
export async function pythonCheck(
  exports: Map<string, Map<string, Buffer>>,
  dir: string,
): Promise<Record<string, unknown>> {
  const args: string[] = [];
  for (const [format, entries] of exports) {
    const root = path.join(dir, format);
    fs.rmSync(root, { recursive: true, force: true });
    for (const [name, bytes] of entries) {
      const file = path.join(root, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes);
    }
    args.push(format, root);
  }
  const { stdout } = await run('/usr/bin/python3', [CHECK, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as Record<string, unknown>;
}
