import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker } from '../../src/server.js';
import type { JobWorker } from '../../src/jobs/worker.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Imported images without a size get it from their file's header, read in the background over
 * a Range request from a real server on 127.0.0.1: a PNG, a JPEG turned by its EXIF orientation,
 * a redirect, a server that ignores ranges, one whose Content-Length lies, and a file in the
 * server's own store. A 404, a web page, a body that never ends and a server that never answers
 * each leave a warning in words on the asset, within the deadline, never a stuck job. Without
 * ANNOTARY_STORAGE_ALLOW_PRIVATE the loopback address is refused. The editor's measured size
 * fills a size still missing, and never replaces one.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function png(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  image.data.fill(200);
  return PNG.sync.write(image);
}

/** A 300 x 200 JPEG whose EXIF says to turn it a quarter (orientation 6): shown 200 x 300. */
const turnedJpeg = execFileSync('/usr/bin/python3', [
  '-c',
  `import io, sys
from PIL import Image
exif = Image.Exif(); exif[0x0112] = 6
out = io.BytesIO(); Image.new('RGB', (300, 200), (200, 30, 30)).save(out, 'JPEG', exif=exif)
sys.stdout.buffer.write(out.getvalue())`,
]);

/** A TIFF of three 600 x 400 pages (uncompressed: each page's directory lies after the page before). */
const threePages = execFileSync(
  '/usr/bin/python3',
  [
    '-c',
    `import io, sys
from PIL import Image
pages = [Image.new('RGB', (600, 400), c) for c in [(200, 0, 0), (0, 200, 0), (0, 0, 200)]]
out = io.BytesIO(); pages[0].save(out, 'TIFF', save_all=True, append_images=pages[1:])
sys.stdout.buffer.write(out.getvalue())`,
  ],
  { maxBuffer: 16 * 1024 * 1024 },
);

interface Served {
  url: string;
  ranges: string[];
  closed: Set<string>;
  close(): Promise<void>;
}

async function serveMedia(): Promise<Served> {
  const photo = png(640, 480);
  const big = png(2000, 1500);
  const ranges: string[] = [];
  const closed = new Set<string>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    ranges.push(`${path} ${req.headers.range ?? ''}`);
    res.on('close', () => closed.add(path));
    const ranged = (body: Buffer, type: string) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return res.writeHead(200, { 'content-type': type }).end(body);
      const part = body.subarray(Number(m[1]), Number(m[2]) + 1);
      res.writeHead(206, {
        'content-type': type,
        'content-range': `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${body.length}`,
      });
      return res.end(part);
    };
    switch (path) {
      case '/photo.png':
        return ranged(photo, 'image/png');
      case '/turned.jpg':
        return ranged(turnedJpeg, 'image/jpeg');
      case '/pages.tif':
        return ranged(threePages, 'image/tiff');
      case '/cut.tif': // ends in the second page's pixels: the third page's directory is not there
        return ranged(threePages.subarray(0, 1_000_000), 'image/tiff');
      case '/pages-no-ranges.tif':
        return res.writeHead(200, { 'content-type': 'image/tiff' }).end(threePages);
      case '/moved.png':
        return res.writeHead(302, { location: '/photo.png' }).end();
      case '/lost.png': // a redirect to no address at all
        return res.writeHead(302, { location: 'http://[not-an-address' }).end();
      case '/no-ranges.png': // the whole file, whatever was asked
        return res.writeHead(200, { 'content-type': 'image/png', 'content-length': big.length }).end(big);
      case '/short.png': // says 100,000 bytes, sends the first 300 and hangs up
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': 100_000 });
        return res.write(photo.subarray(0, 300), () => setTimeout(() => res.destroy(), 50));
      case '/page.jpg':
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<html><body>Sign in</body></html>');
      case '/endless.jpg': {
        // A JPEG's start, then filler without end: read to the cap, then cut off.
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        res.write(Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x10]));
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      case '/silent.png': // never answers
        return undefined;
      default:
        return res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ranges,
    closed,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const NAMES = [
  'photo.png',
  'turned.jpg',
  'moved.png',
  'no-ranges.png',
  'short.png',
  'missing.png',
  'page.jpg',
  'endless.jpg',
  'silent.png',
  'lost.png',
  'pages.tif',
  'cut.tif',
  'pages-no-ranges.tif',
] as const;

describe.each(ENGINES)("assets' sizes read from their headers on %s", (engine) => {
  let media: Served;
  let t: TestApp;
  let worker: JobWorker;
  let projectId: string;
  let assets: Record<string, Json> = {};

  const listAssets = async (pid: string) => {
    const res = await t.call('GET', `/v2/project/${pid}/assets?limit=100`);
    if (res.statusCode !== 200) throw new Error(res.body);
    return Object.fromEntries((res.json().data.assets as Json[]).map((a) => [a.externalId, a]));
  };
  const settled = (a: Json | undefined) => !!a && ((a.metadata?.width && a.metadata?.height) || a.mediaWarning);

  beforeAll(async () => {
    media = await serveMedia();
    t = await makeTestApp(engine, {
      env: {
        ANNOTARY_READ_ASSET_HEADERS: 'true',
        ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
        ANNOTARY_MEDIA_READ_TIMEOUT_MS: '4000',
      },
    });
    worker = startWorker(t.ctx);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Sizes' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          ...NAMES.map((name) => ({ data: `${media.url}/${name}`, externalId: name })),
          { data: `${media.url}/photo.png?sized`, externalId: 'sized.png', metadata: { width: 10, height: 20 } },
          { data: 'http://169.254.169.254/latest/meta-data.png', externalId: 'metadata.png' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    await waitFor(
      async () => {
        assets = await listAssets(projectId);
        return [...NAMES, 'metadata.png'].every((n) => settled(assets[n]));
      },
      'every asset to have a size or a warning',
      20_000,
      250,
    );
  }, 30_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await media?.close();
  });

  it('reads the size of images from the first bytes, over ranges, redirects and odd servers', () => {
    expect(assets['photo.png']?.metadata).toEqual({ width: 640, height: 480 });
    expect(assets['turned.jpg']?.metadata).toEqual({ width: 200, height: 300 });
    expect(assets['moved.png']?.metadata).toEqual({ width: 640, height: 480 });
    expect(assets['no-ranges.png']?.metadata).toEqual({ width: 2000, height: 1500 });
    expect(assets['short.png']?.metadata).toEqual({ width: 640, height: 480 });
    for (const name of ['photo.png', 'turned.jpg', 'moved.png', 'no-ranges.png', 'short.png']) {
      expect(assets[name]?.mediaWarning).toBeNull();
    }
    expect(media.ranges).toContain(`/photo.png bytes=0-${512 * 1024 - 1}`);
    // A size the client gave is kept, and its file is never fetched.
    expect(assets['sized.png']?.metadata).toEqual({ width: 10, height: 20 });
    expect(media.ranges.some((r) => r.startsWith('/photo.png?sized'))).toBe(false);
  });

  it("counts a TIFF's pages from its directories, read by ranges where they lie", () => {
    expect(assets['pages.tif']?.metadata).toEqual({ width: 600, height: 400, pageTotal: 3 });
    expect(assets['pages.tif']?.mediaWarning).toBeNull();
    // The header, then each later page's directory where the one before says it is (a few bytes each).
    const reads = media.ranges.filter((r) => r.startsWith('/pages.tif ')).map((r) => r.split(' ')[1]);
    expect(reads).toEqual(expect.arrayContaining(['bytes=0-524287', 'bytes=720152-720153', 'bytes=1440296-1440297']));
    expect(assets['cut.tif']?.mediaWarning).toBe('the file is cut short before its page 3');
    expect(assets['cut.tif']?.metadata?.pageTotal).toBeUndefined();
    // A later directory cannot be reached without ranges: said in words.
    expect(assets['pages-no-ranges.tif']?.mediaWarning).toMatch(/does not answer range requests/);
  });

  it('leaves a warning in words for what cannot be read, and ends every read', () => {
    expect(assets['missing.png']?.mediaWarning).toBe('the address answered HTTP 404');
    expect(assets['page.jpg']?.mediaWarning).toBe('the address answers a web page (text/html), not an image');
    expect(assets['endless.jpg']?.mediaWarning).toBe("no image size in the file's first 512 KiB");
    expect(assets['silent.png']?.mediaWarning).toBe('the address did not answer within 4 s');
    expect(assets['lost.png']?.mediaWarning).toBe('the address is not a valid URL');
    // Allowing private addresses never allows the cloud's metadata service.
    expect(assets['metadata.png']?.mediaWarning).toBe(
      'refused: 169.254.169.254 is a link-local address (cloud metadata): never allowed',
    );
    for (const name of ['missing.png', 'page.jpg', 'endless.jpg', 'silent.png', 'lost.png']) {
      expect(assets[name]?.metadata).toEqual({});
    }
    // The endless body and the silent server were hung up on, not left open.
    expect(media.closed.has('/endless.jpg')).toBe(true);
    expect(media.closed.has('/silent.png')).toBe(true);
  });

  it('reads a file of its own store from the store', async () => {
    const name = 'stored.png';
    const { uploadUrl } = (await t.call('GET', `/v2/getUploadUrl?project=${projectId}&name=${name}&type=assets`)).json()
      .data;
    const path = new URL(uploadUrl).pathname;
    const put = await t.app.inject({ method: 'PUT', url: path, payload: png(321, 123) });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const { signedUrl } = (
      await t.call('GET', `/v2/getSignedUrl?project=${projectId}&name=${encodeURIComponent(uploadUrl)}`)
    ).json().data;
    await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: signedUrl, externalId: name }] },
    });
    await waitFor(
      async () => settled((await listAssets(projectId))[name]),
      'the stored file to be measured',
      15_000,
      250,
    );
    expect((await listAssets(projectId))[name]?.metadata).toEqual({ width: 321, height: 123 });
  });

  it("fills a size the editor measured when there is none, never replacing one; 404 for another's asset", async () => {
    const fill = (id: string, body: unknown, key?: string) =>
      t.call('PUT', `/v2/asset/${id}/size`, { body, ...(key ? { key } : {}) });
    const page = assets['page.jpg'] as Json;
    let res = await fill(page._id, { width: 800, height: 600 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ filled: true, metadata: { width: 800, height: 600 } });
    const after = (await listAssets(projectId))['page.jpg'];
    expect(after?.metadata).toEqual({ width: 800, height: 600 });
    expect(after?.mediaWarning).toBeNull();
    res = await fill(page._id, { width: 1, height: 1 });
    expect(res.json().data).toEqual({ filled: false, metadata: { width: 800, height: 600 } });
    // The task says whether its asset has a size.
    const task = (await t.call('GET', `/v2/task/${page.taskId}`)).json().data.task;
    expect(task.asset.hasSize).toBe(true);
    const missing = (await t.call('GET', `/v2/task/${(assets['missing.png'] as Json).taskId}`)).json().data.task;
    expect(missing.asset.hasSize).toBe(false);

    res = await fill(page._id, { width: 0, height: 600 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('width');
    const stranger = await t.addUser('stranger@example.com');
    res = await fill((assets['missing.png'] as Json)._id, { width: 5, height: 5 }, stranger);
    expect(res.statusCode).toBe(404);
    res = await fill('0123456789abcdef01234567', { width: 5, height: 5 });
    expect(res.statusCode).toBe(404);
  });
});

describe("assets' headers without private addresses", () => {
  it('refuses to read from the loopback address, in words', async () => {
    const media = await serveMedia();
    const t = await makeTestApp(ENGINES[0] ?? 'sqlite', { env: { ANNOTARY_READ_ASSET_HEADERS: 'true' } });
    const worker = startWorker(t.ctx);
    try {
      const pid = (await t.call('POST', '/v2/project', { body: { name: 'Private' } })).json().data.project._id;
      await t.call('POST', `/v2/project/${pid}/cloud`, {
        body: { assets: [{ data: `${media.url}/photo.png`, externalId: 'photo.png' }] },
      });
      let asset: Json | undefined;
      await waitFor(
        async () => {
          asset = (await t.call('GET', `/v2/project/${pid}/assets`)).json().data.assets[0];
          return asset?.mediaWarning;
        },
        'the refusal',
        15_000,
        250,
      );
      expect(asset?.mediaWarning).toBe(
        'refused: 127.0.0.1 is not a public address (an operator may allow private storage hosts with ANNOTARY_STORAGE_ALLOW_PRIVATE=true)',
      );
      expect(media.ranges).toEqual([]);
    } finally {
      await worker.stop();
      await t.close();
      await media.close();
    }
  });
});
