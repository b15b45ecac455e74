import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutBucketCorsCommand } from '@aws-sdk/client-s3';
import { fillBucket, S3RVER_KEYS, startS3rver } from '../helpers/emulators.js';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { streetPng } from './helpers/editor-assets.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * Uploads from the Assets page: three pictures made here are dropped on the page (a real drop
 * event carrying a DataTransfer built in the page), each is PUT to the file store with its own
 * bar, and they appear as assets with thumbnails. The first PUT of one of them is cut off: it
 * shows as failed, and "Retry" sends that file alone again. Then a folder is picked: its video
 * gets a thumbnail of a frame, its text file is listed by its kind, and a hidden file is left out.
 * Last, a project whose settings name a storage (s3rver, with CORS for the console) gets its
 * uploads there, PUT by the browser straight to the bucket.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, unknown>;
const PICTURES = [
  { name: 'north.png', width: 1200, height: 800 },
  { name: 'south.png', width: 900, height: 600 },
  { name: 'east.png', width: 640, height: 960 },
];

/** Drops the files on the drop zone as a person's drag from the desktop would. */
async function dropFiles(page: Page, files: { name: string; base64: string }[]) {
  // Built in the page (the test's own types know no DOM): the files a desktop drag carries.
  const dataTransfer = await page.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    for (const f of ${JSON.stringify(files)}) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: 'image/png' }));
    }
    return dt;
  })()`);
  const zone = page.getByRole('group', { name: 'Drop files or folders here' });
  await zone.dispatchEvent('dragenter', { dataTransfer });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

describe('uploading files from the Assets page', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let pid = '';

  beforeAll(async () => {
    s3 = await startS3rver();
    server = await startConsoleServer(engine, { env: { ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' } });
    const res = await server.call('POST', '/v2/project', { body: { name: 'Uploads' } });
    pid = (res.json().data.project as Json)._id as string;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await s3?.stop();
  });

  it('makes three assets with thumbnails from a drop, sending again only the file that failed', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInAsOwner(page, server, `/projects/${pid}/assets`);
    await page.getByRole('heading', { name: 'Upload files' }).waitFor();

    // Every PUT to the file store, by file name; the first one of south.png is cut off.
    const puts = new Map<string, number>();
    await page.route('**/files/**', async (route) => {
      if (route.request().method() !== 'PUT') return route.fallback();
      const name = new URL(route.request().url()).pathname.split('/').pop() ?? '';
      puts.set(name, (puts.get(name) ?? 0) + 1);
      if (name === 'south.png' && puts.get(name) === 1) return route.abort('connectionreset');
      return route.fallback();
    });

    const files = PICTURES.map((p) => ({ name: p.name, base64: streetPng(p.width, p.height).toString('base64') }));
    await dropFiles(page, files);
    await page.getByText('2 of 3 uploaded, 1 failed.').waitFor();
    const failed = page.getByRole('listitem').filter({ hasText: 'south.png' });
    await failed.getByText(/^Failed: the connection was lost/).waitFor();
    await screenshot(page, 'console-uploads-failed');

    await page.getByRole('button', { name: 'Retry south.png' }).click();
    await page.getByText('3 of 3 uploaded.').waitFor();
    // The two that had finished were not sent again; the failed one once more; one thumbnail each.
    expect(Object.fromEntries(puts)).toEqual({
      'north.png': 1,
      'south.png': 2,
      'east.png': 1,
      'north.png.thumb.webp': 1,
      'south.png.thumb.webp': 1,
      'east.png.thumb.webp': 1,
    });

    // The list shows the three with their thumbnails: small pictures, loaded, not the originals.
    await page.getByRole('heading', { name: 'Assets (3)' }).waitFor();
    for (const p of PICTURES) {
      const img = page.getByRole('img', { name: `Preview of ${p.name}` });
      await img.waitFor();
      // The decoded size of the picture the row shows (0 until it has loaded).
      const size = () =>
        img.evaluate((el) => {
          const shown = el as unknown as { complete: boolean; naturalWidth: number; naturalHeight: number };
          return shown.complete ? [shown.naturalWidth, shown.naturalHeight] : [0, 0];
        });
      await expect.poll(async () => Math.max(...(await size()))).toBeGreaterThan(0);
      const natural = await size();
      expect(Math.max(...natural)).toBe(256);
    }
    await screenshot(page, 'console-uploads');

    // Through the API: each asset's data reads back the bytes dropped, and knows its size.
    const assets = (await server.call('GET', `/v2/project/${pid}/assets?limit=10`)).json().data.assets as Json[];
    expect(assets.map((a) => a.externalId).sort()).toEqual(['east.png', 'north.png', 'south.png']);
    for (const a of assets) {
      const picture = PICTURES.find((p) => p.name === a.externalId);
      expect(a.metadata).toMatchObject({ width: picture?.width, height: picture?.height });
      const body = Buffer.from(await (await fetch(a.data as string)).arrayBuffer());
      expect(body.equals(streetPng(picture?.width ?? 0, picture?.height ?? 0))).toBe(true);
    }
    expect((await server.call('GET', `/v2/project/${pid}/tasks?limit=1`)).json().data.total).toBe(3);

    // Dropping the same files again uploads nothing: they are already in the project.
    await page.getByRole('button', { name: 'Clear the finished' }).click();
    await dropFiles(page, files);
    await page.getByText('0 of 3 uploaded, 3 skipped.').waitFor();
    expect(puts.get('north.png')).toBe(1);
    // The browser's own line about the connection the test cut; nothing else.
    expect(errors).toEqual(['Failed to load resource: net::ERR_CONNECTION_RESET']);
  });

  it('takes a whole folder: a video with a thumbnail of a frame, a document by its kind', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-upload-'));
    const trip = path.join(folder, 'trip');
    fs.mkdirSync(path.join(trip, 'notes'), { recursive: true });
    // A one-second VP8 test pattern (Debian's ffmpeg), a text file, and a file no asset should be.
    execFileSync(
      'ffmpeg',
      ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '1'].concat([
        '-c:v',
        'libvpx',
        '-b:v',
        '200k',
        path.join(trip, 'clip.webm'),
      ]),
    );
    fs.writeFileSync(path.join(trip, 'notes', 'readme.txt'), 'what the clip shows');
    fs.writeFileSync(path.join(trip, '.DS_Store'), 'finder');
    try {
      const page = await context.newPage();
      const errors = pageErrors(page);
      await page.goto(`/projects/${pid}/assets`);
      await page.getByLabel('Choose a folder').setInputFiles(trip);
      await page.getByText('2 of 2 uploaded.').waitFor();
      await page.getByText('1 file was left out: not an image, video or document.').waitFor();
      const clip = page.getByRole('img', { name: 'Preview of trip/clip.webm' });
      await clip.waitFor();
      const row = page.getByRole('row').filter({ hasText: 'trip/notes/readme.txt' });
      await row.getByText('text', { exact: true }).waitFor();
      await screenshot(page, 'console-uploads-folder');
      const assets = (await server.call('GET', `/v2/project/${pid}/assets?limit=10`)).json().data.assets as Json[];
      const video = assets.find((a) => a.externalId === 'trip/clip.webm');
      expect(video?.metadata).toMatchObject({
        width: 320,
        height: 240,
        thumbnail: expect.stringMatching(/thumb\.webp$/),
      });
      expect(assets.find((a) => a.externalId === 'trip/notes/readme.txt')?.metadata).toEqual({});
      expect(errors).toEqual([]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("sends the files of a project with a storage to that storage's bucket", async () => {
    await fillBucket(s3.client, 'frames', {});
    await s3.client.send(
      new PutBucketCorsCommand({
        Bucket: 'frames',
        CORSConfiguration: {
          CORSRules: [{ AllowedOrigins: [server.url], AllowedMethods: ['PUT', 'GET'], AllowedHeaders: ['*'] }],
        },
      }),
    );
    const storage = await server.call('POST', '/v2/storages', {
      body: { name: 's3', provider: 'CUSTOM_S3', host: s3.url, publicKey: S3RVER_KEYS.accessKeyId, privateKey: 'S3' },
    });
    const storageId = storage.json().data.storage._id as string;
    const made = await server.call('POST', '/v2/project', { body: { name: 'Stored' } });
    const stored = (made.json().data.project as Json)._id as string;
    const settings = await server.call('POST', `/v2/project/${stored}`, {
      body: { exportStorageId: storageId, exportStorageBucket: 'frames' },
    });
    expect(settings.statusCode, settings.body).toBe(200);

    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto(`/projects/${stored}/assets`);
    await page.getByText("Stored in the project's storage", { exact: false }).waitFor();
    const picture = streetPng(800, 600);
    await dropFiles(page, [{ name: 'west.png', base64: picture.toString('base64') }]);
    await page.getByText('1 of 1 uploaded.').waitFor();
    await page.getByRole('img', { name: 'Preview of west.png' }).waitFor();

    // The bytes are in the bucket, under the project's key; the asset's link of ours leads there.
    const asset = (await server.call('GET', `/v2/project/${stored}/assets`)).json().data.assets[0] as Json;
    expect(asset.data).toMatch(new RegExp(`^${server.url}/files/\\d+/[\\w-]+/~storage/`));
    const object = await fetch(asset.data as string);
    expect(object.url.startsWith(`${s3.url}/frames/${stored}/assets/`)).toBe(true);
    expect(Buffer.from(await object.arrayBuffer()).equals(picture)).toBe(true);
    expect(errors).toEqual([]);
  });
});
