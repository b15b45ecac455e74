import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { canvasView, colorAt, dragFrom, signInWithKey, sliceShown, startStage } from './helpers/editor-page.js';
import { editorProject, openEditorTask } from './helpers/editor-task.js';

/*
 * Volumes with a real mouse and keyboard: a CT series of three DICOM files made by pydicom (their
 * names and instance numbers out of order with their positions, so the editor must sort by
 * position), an RLE-compressed multi-frame file, an NRRD written here, and broken inputs. Each
 * slice is one value, so the grey on screen says which slice and which window are shown.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const W = 64;
const H = 48;

/** The DICOM files, by name. */
function makeDicom(): Record<string, Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-dicom-'));
  const script = `
import sys, numpy as np
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.encaps import encapsulate
from pydicom.uid import ExplicitVRLittleEndian, ImplicitVRLittleEndian, JPEGBaseline8Bit, RLELossless, generate_uid
out = sys.argv[1]
series = generate_uid()
def make(name, hu, z, instance, syntax=ExplicitVRLittleEndian, series_uid=None, pixels=True, frames=None, size=(${H}, ${W})):
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = '1.2.840.10008.5.1.4.1.1.2'
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = syntax
    ds = FileDataset(name, {}, file_meta=meta, preamble=b'\\0' * 128)
    ds.is_little_endian = True
    ds.is_implicit_VR = syntax == ImplicitVRLittleEndian
    ds.PatientName = 'Doe^Jane'
    ds.PatientID = 'P-0042'
    ds.StudyDescription = 'CT chest'
    ds.Modality = 'CT'
    ds.SeriesInstanceUID = series_uid or series
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.InstanceNumber = instance
    ds.ImagePositionPatient = [0, 0, z]
    ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    ds.PixelSpacing = [0.7, 0.7]
    ds.Rows, ds.Columns = size
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = 'MONOCHROME2'
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 1
    ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
    ds.WindowCenter, ds.WindowWidth = 100, 400
    if pixels:
        values = hu if frames is None else [hu + 100 * f for f in range(frames)]
        arr = np.stack([np.full(size, v + 1024, dtype=np.int16) for v in np.atleast_1d(values)])
        if frames is None:
            arr = arr[0]
        else:
            ds.NumberOfFrames = frames
        ds.PixelData = arr.tobytes()
        if syntax == RLELossless:
            ds.compress(RLELossless, arr)
        elif syntax == JPEGBaseline8Bit:
            ds.PixelData = encapsulate([arr.tobytes()])
    ds.save_as(f'{out}/{name}', write_like_original=False)
make('a.dcm', 1000, 20, 1)
make('b.dcm', 0, 0, 2)
make('c.dcm', 200, 10, 3, syntax=ImplicitVRLittleEndian)
make('other-series.dcm', 0, 30, 4, series_uid=generate_uid())
make('narrow.dcm', 0, 30, 4, size=(${H}, ${W / 2}))
make('no-pixels.dcm', 0, 0, 1, pixels=False)
make('jpeg.dcm', 0, 0, 1, syntax=JPEGBaseline8Bit)
make('rle.dcm', 0, 0, 1, syntax=RLELossless, frames=4)
`;
  execFileSync('/usr/bin/python3', ['-c', script, dir]);
  const out: Record<string, Buffer> = {};
  for (const name of fs.readdirSync(dir)) out[name] = fs.readFileSync(path.join(dir, name));
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

/** An NRRD of 32 x 24 x 5 shorts, gzip: slice k holds k * 100. */
function makeNrrd(): Buffer {
  const [x, y, z] = [32, 24, 5];
  const data = Buffer.alloc(x * y * z * 2);
  for (let k = 0; k < z; k++) for (let i = 0; i < x * y; i++) data.writeInt16LE(k * 100, (k * x * y + i) * 2);
  const header = `NRRD0004\ntype: short\ndimension: 3\nsizes: ${x} ${y} ${z}\nspacings: 1 1 2\nencoding: gzip\nendian: little\n\n`;
  return Buffer.concat([Buffer.from(header, 'latin1'), gzipSync(data)]);
}

describe('the editor of volumes', () => {
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
    const dicom = makeDicom();
    assets = await serveAssets({
      ...Object.fromEntries(
        Object.entries(dicom).map(([name, body]) => [`/ct/${name}`, { type: 'application/dicom', body }]),
      ),
      '/head.nrrd': { type: 'application/octet-stream', body: makeNrrd() },
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    const ct = (names: string[]) => names.map((n) => `${assets.url}/ct/${n}`);
    const series = ct(['a.dcm', 'b.dcm', 'c.dcm']);
    const project = await editorProject(server, {
      name: 'Scans',
      categorySchema: {
        tools: [{ schemaId: 'nodule', title: 'Nodule', tool: 'bounding-box', color: '#f79009' }],
        classifications: [],
      },
      assets: [
        { data: series[0]!, dataset: series, externalId: 'series' },
        { data: `${assets.url}/head.nrrd`, externalId: 'nrrd' },
        { data: `${assets.url}/ct/rle.dcm`, externalId: 'rle' },
        { data: ct(['a.dcm'])[0]!, dataset: ct(['a.dcm', 'other-series.dcm']), externalId: 'mixed' },
        { data: ct(['a.dcm'])[0]!, dataset: ct(['a.dcm', 'narrow.dcm']), externalId: 'sizes' },
        { data: `${assets.url}/ct/no-pixels.dcm`, externalId: 'no-pixels' },
        { data: `${assets.url}/ct/jpeg.dcm`, externalId: 'jpeg' },
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

  /** The grey shown at a voxel of the slice, read from the screen. */
  const greyAt = async (page: Page, at: [number, number]): Promise<number> => (await colorAt(page, at))[0];
  const near = (want: number) => (got: number) => Math.abs(got - want) <= 2;

  it('opens a series sorted by position, turns slices with the wheel and the arrows, and sets the window', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Label', 'Scans');
    await openEditorTask(page, server, tasks.series);
    // The middle slice (by position: b at 0, c at 10, a at 20), 200 HU through the file's window
    // (centre 100, width 400): (200 - -100) / 400 * 255.
    await expect.poll(() => greyAt(page, [32, 24]), { timeout: 15_000 }).toSatisfy(near(191));
    expect(await sliceShown(page)).toBe(1);
    await expect(page.getByLabel('Patient and study').textContent()).resolves.toContain('Doe Jane');

    const view = await canvasView(page);
    const [cx, cy] = view.screen([32, 24]);
    await page.mouse.move(cx, cy);
    await page.mouse.wheel(0, -100);
    await expect.poll(() => sliceShown(page)).toBe(2);
    await expect.poll(() => greyAt(page, [32, 24])).toBe(255); // a: 1000 HU
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => sliceShown(page)).toBe(0);
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(64)); // b: 0 HU

    // Lung preset (centre -600, width 1500): 0 HU is (0 - -1350) / 1500 * 255.
    await page.getByLabel('Window', { exact: true }).selectOption('Lung');
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(230));
    await page.getByLabel('Window', { exact: true }).selectOption('From the file');
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(64));
    // Dragging right with the right button widens the window: 100 px, width 400 + 4 * 100.
    await page.mouse.move(cx, cy);
    await page.mouse.down({ button: 'right' });
    await page.mouse.move(cx + 50, cy, { steps: 3 });
    await page.mouse.move(cx + 100, cy, { steps: 3 });
    await page.mouse.up({ button: 'right' });
    await expect.poll(() => page.getByLabel('Window shown').getAttribute('data-width')).toBe('800');
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(96));
    await screenshot(page, 'editor-volume-series');

    // A box on slice 3 is stored with page 2.
    await page.keyboard.press('End');
    await expect.poll(() => sliceShown(page)).toBe(2);
    await page.getByRole('button', { name: /^Nodule tool/ }).click();
    await dragFrom(page, [10, 10], [30, 20]);
    await page.getByRole('button', { name: 'Select tool' }).click();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks.series as string));
    const task = (await api('GET', `/v2/task/${tasks.series}`)).task as Json;
    expect((task.answer.tools as Json[]).map((t) => t.page)).toEqual([2]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens an NRRD and an RLE multi-frame DICOM', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await openEditorTask(page, server, tasks.nrrd);
    // Slices hold 0..400; the full range is the window: slice 3 (200) is mid-grey.
    await expect.poll(() => sliceShown(page), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => greyAt(page, [16, 12])).toSatisfy(near(128));
    expect(await page.getByText('of 5', { exact: true }).count()).toBe(1);
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => greyAt(page, [16, 12])).toSatisfy(near(191));
    await screenshot(page, 'editor-volume-nrrd');

    // Coronal: 32 across and the 5 slices of 2 mm over voxels of 1 mm, shown 10 rows high, the
    // last slice (400, white) on top and the first (0, black) at the bottom; 24 coronal slices.
    // Another plane offers no drawing tools.
    expect(await page.getByRole('button', { name: /^Nodule tool/ }).count()).toBe(1);
    await page.getByLabel('View', { exact: true }).selectOption('coronal');
    await expect.poll(() => page.getByLabel('Slice shown').getAttribute('data-plane')).toBe('coronal');
    expect(await sliceShown(page)).toBe(12);
    expect(await page.getByText('of 24', { exact: true }).count()).toBe(1);
    await expect.poll(() => greyAt(page, [16, 0.5])).toSatisfy(near(255));
    expect(await greyAt(page, [16, 9.5])).toSatisfy(near(0));
    expect(await greyAt(page, [16, 5.5])).toSatisfy(near(128));
    expect(await page.getByRole('button', { name: /^Nodule tool/ }).count()).toBe(0);
    await screenshot(page, 'editor-volume-coronal');
    // Sagittal: 24 across, 32 slices; back to axial on the slice left.
    await page.getByLabel('View', { exact: true }).selectOption('sagittal');
    await expect.poll(() => page.getByText('of 32', { exact: true }).count()).toBe(1);
    expect(await greyAt(page, [12, 0.5])).toSatisfy(near(255));
    await page.getByLabel('View', { exact: true }).selectOption('axial');
    await expect.poll(() => sliceShown(page)).toBe(3);
    await expect.poll(() => greyAt(page, [16, 12])).toSatisfy(near(191));

    await openEditorTask(page, server, tasks.rle);
    // Four frames of 0, 100, 200, 300 HU; the middle one (200) through centre 100, width 400.
    await expect.poll(() => sliceShown(page), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(191));
    await page.keyboard.press('Home');
    await expect.poll(() => greyAt(page, [32, 24])).toSatisfy(near(64));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says in words what is wrong with a volume it cannot open', async () => {
    const page = await context.newPage();
    for (const [name, words] of [
      ['mixed', /other-series\.dcm belongs to another series/],
      ['sizes', /narrow\.dcm is 32x48 pixels, a\.dcm 64x48: a volume's slices are one size/],
      ['no-pixels', /no-pixels\.dcm has no pixel data/],
      ['jpeg', /transfer syntax 1\.2\.840\.10008\.1\.2\.4\.50 \(JPEG baseline\)/],
    ] as const) {
      await openEditorTask(page, server, tasks[name]);
      await expect
        .poll(() => page.getByRole('alert').allTextContents(), { timeout: 15_000 })
        .toContainEqual(expect.stringMatching(words));
    }
    await screenshot(page, 'editor-volume-refused');
    await page.close();
  });
});
