import { execFileSync } from 'node:child_process';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nrrdSamples, parseNrrdHeader } from '../../src/shared/nrrd.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { canvasView, colorAt, signInWithKey, sliceShown, startStage, type Vec } from './helpers/editor-page.js';
import { editorProject, openEditorTask } from './helpers/editor-task.js';

/*
 * The voxel brush (`medical-brush`) with a real mouse on an NRRD volume of 40 x 30 x 9: a class
 * painted over three slices, a second class, the eraser, and Fill between slices; the task's
 * `.seg.nrrd` is read back (with our reader and with numpy) and its voxels under the strokes hold
 * the class numbers, 0 elsewhere. A stored layer of another size is said in words.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const [X, Y, Z] = [40, 30, 9];

/** An NRRD of X x Y x Z shorts, gzip: slice k holds k * 10. */
function makeNrrd(): Buffer {
  const data = Buffer.alloc(X * Y * Z * 2);
  for (let k = 0; k < Z; k++) for (let i = 0; i < X * Y; i++) data.writeInt16LE(k * 10, (k * X * Y + i) * 2);
  const header = `NRRD0004\ntype: short\ndimension: 3\nsizes: ${X} ${Y} ${Z}\nspacings: 1 1 2\nencoding: gzip\nendian: little\n\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), gzipSync(data)]);
}

/** The voxels of a `.seg.nrrd`, read with our reader: [x, y, z] -> class number. */
function readLayer(file: Buffer): { sizes: number[]; at(x: number, y: number, z: number): number } {
  const header = parseNrrdHeader(file);
  const body = file.subarray(header.dataOffset);
  const samples = nrrdSamples(header, header.encoding === 'gzip' ? gunzipSync(body) : body);
  const [w, h] = header.sizes as [number, number];
  return { sizes: header.sizes, at: (x, y, z) => samples[z * w * h + y * w + x]! };
}

describe('the voxel brush', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  const tasks: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    assets = await serveAssets({
      '/chest.nrrd': { type: 'application/octet-stream', body: makeNrrd() },
      '/other.nrrd': { type: 'application/octet-stream', body: makeNrrd() },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const project = await editorProject(server, {
      name: 'Voxels',
      categorySchema: {
        tools: [
          { schemaId: '3', title: 'Liver', tool: 'medical-brush', color: '#e6194b' },
          { schemaId: '7', title: 'Tumour', tool: 'medical-brush', color: '#3cb44b' },
        ],
        classifications: [],
      },
      assets: [
        { data: `${assets.url}/chest.nrrd`, externalId: 'chest' },
        { data: `${assets.url}/other.nrrd`, externalId: 'other' },
      ],
    });
    Object.assign(tasks, project.tasks);
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
  });

  const goToSlice = async (page: Page, z: number) => {
    await page.getByLabel('Slice', { exact: true }).fill(String(z + 1));
    await page.getByLabel('Slice', { exact: true }).press('Enter');
    await expect.poll(() => sliceShown(page)).toBe(z);
  };
  const stroke = async (page: Page, points: Vec[]) => {
    const view = await canvasView(page);
    const [first, ...rest] = points.map((p) => view.screen(p));
    await page.mouse.move(first![0], first![1]);
    await page.mouse.down();
    for (const [x, y] of rest) await page.mouse.move(x, y, { steps: 8 });
    await page.mouse.up();
  };

  /** How far the shown colour leans to the Liver's red, or the Tumour's green, over the grey slice. */
  const redness = ([r, g]: number[]) => r! - g!;
  const greenness = ([r, g]: number[]) => g! - r!;

  it('paints a class over three slices, a second class, erases, fills between slices, and saves a .seg.nrrd', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Label', 'Voxels');
    await openEditorTask(page, server, tasks.chest);
    await expect.poll(() => sliceShown(page), { timeout: 15_000 }).toBe(4);

    // Liver (3), brush 3 voxels wide: a horizontal stroke on slices 2, 3 and 4 (0-based 1..3).
    await page.getByRole('button', { name: /^Liver tool/ }).click();
    await page.getByLabel('Brush size').fill('3');
    for (const z of [1, 2, 3]) {
      await goToSlice(page, z);
      await stroke(page, [
        [5.5, 10.5],
        [20.5, 10.5],
      ]);
    }
    // The stroke shows in the class's colour over the grey slice, and not on a slice left unpainted.
    await expect.poll(() => colorAt(page, [12.5, 10.5]).then(redness)).toBeGreaterThan(80);
    await screenshot(page, 'editor-voxels-stroke');
    await goToSlice(page, 4);
    expect(redness(await colorAt(page, [12.5, 10.5]))).toBeLessThan(5);

    // Tumour (7): a square blob on slice 1 and on slice 7; Fill between slices fills 2..6.
    await page.getByRole('button', { name: /^Tumour tool/ }).click();
    await page.getByLabel('Brush size').fill('5');
    await goToSlice(page, 0);
    await stroke(page, [
      [30.5, 22.5],
      [32.5, 22.5],
    ]);
    await goToSlice(page, 6);
    await stroke(page, [
      [30.5, 22.5],
      [32.5, 22.5],
    ]);
    // The eraser clears the stroke's left end on slice 2 (0-based 1), with the Liver class in hand.
    await goToSlice(page, 1);
    await page.getByRole('button', { name: /^Liver tool/ }).click();
    await page.getByRole('button', { name: /^Eraser/ }).click();
    await stroke(page, [
      [5.5, 10.5],
      [7.5, 10.5],
    ]);
    await page.getByRole('button', { name: /^Eraser/ }).click();
    await page.getByRole('button', { name: 'Fill between slices' }).click();
    await expect
      .poll(() => page.getByRole('status', { name: 'Slices filled' }).textContent())
      .toBe('Filled 5 slices (2 to 6).');
    await goToSlice(page, 3);
    await expect.poll(() => colorAt(page, [31.5, 22.5]).then(greenness)).toBeGreaterThan(40);
    await screenshot(page, 'editor-voxels-filled');

    // The draft carries the layer: opened again, the filled slice shows the Tumour.
    await expect(page.getByText(/^Draft saved/).waitFor({ timeout: 15_000 })).resolves.toBeUndefined();
    expect(((await api('GET', `/v2/task/${tasks.chest}`)).task as Json).medicalBrushDataUrl).toMatch(/^http/);
    await page.reload();
    await expect.poll(() => sliceShown(page), { timeout: 15_000 }).toBe(4);
    await goToSlice(page, 3);
    await expect.poll(() => colorAt(page, [31.5, 22.5]).then(greenness)).toBeGreaterThan(40);

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks.chest as string));
    const task = (await api('GET', `/v2/task/${tasks.chest}`)).task as Json;
    const link = task.medicalBrushDataUrl as string;
    expect(link).toMatch(/^http.*\.seg\.nrrd/);
    const file = Buffer.from(await (await fetch(link)).arrayBuffer());
    const layer = readLayer(file);
    expect(layer.sizes).toEqual([X, Y, Z]);
    // Under the Liver stroke on each of its three slices: 3; above and below it, and on slices
    // not painted: 0. Slice 1's left end was erased.
    for (const z of [1, 2, 3]) {
      for (const x of [10, 15, 19]) expect(layer.at(x, 10, z), `liver ${x},10,${z}`).toBe(3);
      expect(layer.at(12, 6, z)).toBe(0);
      expect(layer.at(12, 14, z)).toBe(0);
    }
    expect(layer.at(5, 10, 2)).toBe(3);
    expect(layer.at(5, 10, 1)).toBe(0);
    for (const z of [0, 4, 5, 6, 7, 8]) expect(layer.at(12, 10, z), `liver off slice ${z}`).toBe(0);
    // Tumour on slices 0 and 6 as painted, filled between them, none after.
    for (const z of [0, 1, 2, 3, 4, 5, 6]) expect(layer.at(31, 22, z), `tumour slice ${z}`).toBe(7);
    for (const z of [7, 8]) expect(layer.at(31, 22, z)).toBe(0);
    expect(layer.at(31, 15, 3)).toBe(0);

    // numpy reads the same voxels (x fastest in the file: the array is z, y, x).
    const counts = execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        `
import sys, gzip, numpy as np
raw = sys.stdin.buffer.read()
head, body = raw.split(b'\\n\\n', 1)
sizes = [int(s) for s in [l for l in head.decode().split('\\n') if l.startswith('sizes:')][0].split()[1:]]
v = np.frombuffer(gzip.decompress(body), dtype=np.uint8).reshape(sizes[::-1])
print(int(v[1:4, 10, 10:20].min()), int(v[1:4, 10, 10:20].max()), int((v == 3).sum() > 0), int(v[0:7, 22, 31].min()), int(v[8].max()))
`,
      ],
      { input: file },
    )
      .toString()
      .trim();
    expect(counts).toBe('3 3 1 7 0');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in words when a stored layer is not the volume size', async () => {
    const page = await context.newPage();
    // A layer of another size stored on the other task through the API: the editor shows why it is not drawn.
    const wrong = Buffer.concat([
      Buffer.from('NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 2\nencoding: gzip\nendian: little\n\n', 'latin1'),
      gzipSync(Buffer.alloc(32, 3)),
    ]);
    const uploaded = await server.app.inject({
      method: 'POST',
      url: `/v2/task/${tasks.other}/medical-brush`,
      headers: { apikey: server.ownerKey, 'content-type': 'application/octet-stream' },
      payload: wrong,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    await api('POST', `/v2/annotate/${tasks.other}`, {
      answer: { tools: [], classifications: [] },
      medicalBrushDataUrl: uploaded.json().data.medicalBrushDataUrl,
    });
    await openEditorTask(page, server, tasks.other);
    await expect
      .poll(() => page.getByRole('alert').allTextContents(), { timeout: 15_000 })
      .toContainEqual(expect.stringMatching(/saved voxel layer is 4x4x2 voxels; the volume is 40x30x9/));
    // The volume still opens, and the questions can be answered.
    await expect.poll(() => sliceShown(page)).toBe(4);
    await screenshot(page, 'editor-voxels-wrong-size');
    await page.close();
  });
});
