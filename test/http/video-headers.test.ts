import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../src/jobs/worker.js';
import { startWorker } from '../../src/server.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * Imported videos get their size, frame count and frame rate from their container's header, read
 * in the background over Range requests from a real server on 127.0.0.1, never by decoding: an
 * MP4 made for streaming (its index first), one of 1.5 MB whose index is at its end (a second
 * range read of the index alone), a WebM, and variable-frame-rate files marked `vfr: true`, all
 * made here by ffmpeg. An index at the end of a file on a server that ignores ranges, a text file
 * named .mp4 and a web page leave a warning in words; facts the client sent are kept.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function ffmpeg(name: string, args: string[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-vhead-'));
  const out = path.join(dir, name);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, out]);
  const body = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return body;
}

const source = (size: string, seconds: number) => [
  '-f',
  'lavfi',
  '-i',
  `testsrc2=size=${size}:rate=30`,
  '-t',
  String(seconds),
];
const h264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'];
// Every third frame after the tenth: frames 33 ms and 100 ms apart.
const uneven = ['-vf', "select='not(mod(n\\,3))+lt(n\\,10)'", '-fps_mode', 'vfr'];

interface Served {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

async function serveVideos(files: Record<string, Buffer>): Promise<Served> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '').slice(1).split('?')[0] ?? '';
    requests.push(`${name} ${req.headers.range ?? ''}`);
    if (name === 'page.mp4') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>');
    const key = name.replace(/^whole-/, '');
    const body = files[key];
    if (!body) return res.writeHead(404).end();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    // whole-*: a server that ignores ranges and always sends the whole file.
    if (!m || name.startsWith('whole-')) return res.writeHead(200, { 'content-length': body.length }).end(body);
    const part = body.subarray(Number(m[1]), Number(m[2]) + 1);
    res.writeHead(206, { 'content-range': `bytes ${m[1]}-${Number(m[1]) + part.length - 1}/${body.length}` });
    return res.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(ENGINES)("videos' facts read from their headers on %s", (engine) => {
  let media: Served;
  let t: TestApp;
  let worker: JobWorker;
  let assets: Record<string, Json> = {};
  const files: Record<string, Buffer> = {};

  beforeAll(async () => {
    files['streaming.mp4'] = ffmpeg('s.mp4', [...source('320x240', 2), ...h264, '-movflags', '+faststart']);
    // Lossless, so the media data (about 1.5 MB) is longer than the first read.
    files['index-at-end.mp4'] = ffmpeg('e.mp4', [...source('640x480', 3), ...h264, '-crf', '0']);
    files['clip.webm'] = ffmpeg('c.webm', [...source('320x240', 2), '-c:v', 'libvpx-vp9', '-b:v', '200k']);
    files['uneven.mp4'] = ffmpeg('u.mp4', [...source('320x240', 2), ...uneven, ...h264]);
    files['uneven.webm'] = ffmpeg('u.webm', [...source('320x240', 2), ...uneven, '-c:v', 'libvpx-vp9', '-b:v', '100k']);
    files['words.mp4'] = Buffer.from('these are words, not a video');
    expect(files['index-at-end.mp4'].length).toBeGreaterThan(512 * 1024);
    media = await serveVideos(files);
    t = await makeTestApp(engine, {
      env: {
        ANNOTARY_READ_ASSET_HEADERS: 'true',
        ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
        ANNOTARY_MEDIA_READ_TIMEOUT_MS: '5000',
      },
    });
    worker = startWorker(t.ctx);
    const projectId = (await t.call('POST', '/v2/project', { body: { name: 'Clips' } })).json().data.project._id;
    const names = [
      'streaming.mp4',
      'index-at-end.mp4',
      'clip.webm',
      'uneven.mp4',
      'uneven.webm',
      'words.mp4',
      'page.mp4',
      'whole-index-at-end.mp4',
    ];
    const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: {
        assets: [
          ...names.map((name) => ({ data: `${media.url}/${name}`, externalId: name })),
          { data: `${media.url}/clip.webm?told`, externalId: 'told.webm', metadata: { frameRate: 25, title: 'Told' } },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    await waitFor(
      async () => {
        const listed = await t.call('GET', `/v2/project/${projectId}/assets?limit=100`);
        assets = Object.fromEntries((listed.json().data.assets as Json[]).map((a) => [a.externalId, a]));
        return Object.values(assets).every((a) => a.metadata?.frameTotal || a.mediaWarning);
      },
      'every video to have its facts or a warning',
      30_000,
      250,
    );
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await media?.close();
  });

  it("reads size, frame count and rate from an MP4's index, first or last, and from a WebM", () => {
    const facts = { width: 320, height: 240, frameTotal: 60, frameRate: 30 };
    expect(assets['streaming.mp4']?.metadata).toEqual(facts);
    expect(assets['clip.webm']?.metadata).toEqual(facts);
    expect(assets['index-at-end.mp4']?.metadata).toEqual({ width: 640, height: 480, frameTotal: 90, frameRate: 30 });
    for (const name of ['streaming.mp4', 'clip.webm', 'index-at-end.mp4'])
      expect(assets[name]?.mediaWarning).toBeNull();
    // The index at the end is read alone, from where the media data ends; never the whole file.
    const asked = media.requests.filter((r) => r.startsWith('index-at-end.mp4 '));
    expect(asked).toHaveLength(2);
    expect(asked[0]).toBe(`index-at-end.mp4 bytes=0-${512 * 1024 - 1}`);
    const [, from, to] = /bytes=(\d+)-(\d+)/.exec(asked[1] ?? '') ?? [];
    expect(Number(from)).toBeGreaterThan(512 * 1024);
    expect(Number(to)).toBe(files['index-at-end.mp4']!.length - 1);
  });

  it('marks videos whose frames are unevenly spaced', () => {
    for (const name of ['uneven.mp4', 'uneven.webm']) {
      const m = assets[name]?.metadata;
      expect(m?.vfr, name).toBe(true);
      expect(m?.width).toBe(320);
      expect(m?.frameRate).toBeGreaterThan(10);
      expect(m?.frameRate).toBeLessThan(30);
    }
    expect(assets['streaming.mp4']?.metadata).not.toHaveProperty('vfr');
  });

  it('keeps what the client said and adds only what was missing', () => {
    expect(assets['told.webm']?.metadata).toEqual({
      title: 'Told',
      frameRate: 25,
      width: 320,
      height: 240,
      frameTotal: 60,
    });
  });

  it('says in words what cannot be read', () => {
    expect(assets['words.mp4']?.mediaWarning).toBe('the file is not an MP4 or MOV video');
    expect(assets['page.mp4']?.mediaWarning).toBe('the address answers a web page (text/html), not a video');
    expect(assets['whole-index-at-end.mp4']?.mediaWarning).toBe(
      'the server does not answer range requests, and the part needed is not at the start of the file',
    );
    for (const name of ['words.mp4', 'page.mp4', 'whole-index-at-end.mp4']) {
      expect(assets[name]?.metadata).toEqual({});
    }
  });
});
