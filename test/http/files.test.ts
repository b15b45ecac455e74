import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { bootstrap } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { eventually, filesUnder, listen, PUBLIC_URL, rawPut } from '../helpers/files.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES, makeStore } from '../helpers/stores.js';

const LIMIT = 65_536;
const LINK =
  /^http:\/\/annotary\.test\/files\/(\d+)\/([A-Za-z0-9_-]{43})\/([0-9a-f]{24})\/(\w+)\/([0-9a-f]{24})\/(.+)$/;

describe.each(ENGINES)('file store and signed links on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let users: RoleUsers;
  let local: (url: string) => string;
  const clock = { at: Date.UTC(2031, 4, 6, 12), now: () => clock.at };
  const filesDir = () => path.join(t.ctx.config.dataDir, 'files');
  const bytes = randomBytes(1000);

  const uploadUrl = async (query: string, key?: string) =>
    t.call('GET', `/v2/getUploadUrl?project=${projectId}&${query}`, key ? { key } : {});
  const signedUrl = async (query: string, key?: string) =>
    t.call('GET', `/v2/getSignedUrl?${query}`, key ? { key } : {});

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock, env: { ANNOTARY_UPLOAD_LIMIT: String(LIMIT) } });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Files' } })).json().data.project._id;
    users = await addRoleUsers(t, projectId, `files-${engine}`);
    local = await listen(t.app);
  });
  afterAll(() => t.close());

  it('uploads raw bytes with no header and no query string, then reads them back through a signed GET', async () => {
    const res = await uploadUrl('name=frame%201.PNG&type=assets');
    expect(res.statusCode).toBe(200);
    const url: string = res.json().data.uploadUrl;
    const m = LINK.exec(url);
    expect(m?.[3]).toBe(projectId);
    expect(m?.[4]).toBe('assets');
    expect(m?.[6]).toBe('frame_1.PNG');
    expect(url).not.toContain('?');
    expect(Number(m?.[1])).toBe(Math.floor(clock.at / 1000) + 3600);

    // As the Python client does: requests.put(url, data=bytes), no content type, no API key.
    const put = await request(local(url), { method: 'PUT', body: bytes });
    expect(put.statusCode).toBe(200);
    expect(await put.body.json()).toEqual({
      status: 'success',
      data: { file: { key: url.split('/').slice(6).join('/'), size: 1000 } },
    });
    expect(put.headers['x-ratelimit-limit']).toBeUndefined();

    // The client keeps the upload URL as the asset's data and asks for a read link with it.
    const signed = await signedUrl(`name=${url}&project=${projectId}&type=assets`, users.key.Labeler);
    expect(signed.statusCode).toBe(200);
    const readUrl: string = signed.json().data.signedUrl;
    expect(readUrl).toMatch(LINK);
    const get = await request(local(readUrl));
    expect(get.statusCode).toBe(200);
    expect(get.headers['content-type']).toBe('image/png');
    expect(get.headers['content-length']).toBe('1000');
    expect(get.headers['accept-ranges']).toBe('bytes');
    expect(Buffer.from(await get.body.arrayBuffer()).equals(bytes)).toBe(true);

    const range = await request(local(readUrl), { headers: { range: 'bytes=100-199' } });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe('bytes 100-199/1000');
    expect(range.headers['content-length']).toBe('100');
    expect(Buffer.from(await range.body.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await request(local(readUrl), { headers: { range: 'bytes=-10' } });
    expect(tail.statusCode).toBe(206);
    expect(Buffer.from(await tail.body.arrayBuffer()).equals(bytes.subarray(990))).toBe(true);
    const beyond = await request(local(readUrl), { headers: { range: 'bytes=5000-6000' } });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */1000');
    expect((await beyond.body.json()) as object).toMatchObject({ status: 'fail' });

    const head = await request(local(readUrl), { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe('1000');
    expect((await head.body.arrayBuffer()).byteLength).toBe(0);

    // A key of our store works as `name` too, and the project may be left out.
    const byKey = await signedUrl(`name=${url.split('/').slice(6).join('/')}`);
    expect(byKey.json().data.signedUrl).toMatch(LINK);
  });

  it('binds a link to its method, key and expiry: anything else answers 403', async () => {
    const url: string = (await uploadUrl('name=a.txt')).json().data.uploadUrl;
    expect((await request(local(url), { method: 'PUT', body: 'hello' })).statusCode).toBe(200);
    const readUrl: string = (await signedUrl(`name=${url}`)).json().data.signedUrl;
    const [, expiry, sig, ...rest] = new URL(readUrl).pathname.split('/').slice(1);
    const key = rest.join('/');
    const bad = async (u: string, method: 'GET' | 'PUT' = 'GET') => {
      const res = await request(local(u), { method, ...(method === 'PUT' ? { body: 'x' } : {}) });
      const body = (await res.body.json()) as { status: string; message: string };
      return { message: body.message, status: res.statusCode };
    };
    expect(await bad(url)).toMatchObject({ status: 403 }); // an upload link does not read
    expect(await bad(readUrl, 'PUT')).toMatchObject({ status: 403 }); // a read link does not write
    const flipped = sig!.startsWith('A') ? `B${sig!.slice(1)}` : `A${sig!.slice(1)}`;
    for (const tampered of [
      `${PUBLIC_URL}/files/${expiry}/${flipped}/${key}`,
      `${PUBLIC_URL}/files/${Number(expiry) + 60}/${sig}/${key}`,
      `${PUBLIC_URL}/files/${expiry}/${sig}/${key.replace('a.txt', 'b.txt')}`,
      `${PUBLIC_URL}/files/${expiry}/short/${key}`,
      `${PUBLIC_URL}/files/soon/${sig}/${key}`,
    ]) {
      expect(await bad(tampered)).toEqual({ status: 403, message: 'the signature of this file link is not valid' });
    }
    clock.at += 3601_000;
    try {
      expect(await bad(readUrl)).toEqual({ status: 403, message: 'this file link has expired; ask for a new one' });
      expect(await bad(url, 'PUT')).toMatchObject({ status: 403, message: expect.stringContaining('expired') });
      // A fresh read link for the same file works again.
      const again: string = (await signedUrl(`name=${readUrl}`)).json().data.signedUrl;
      expect((await request(local(again))).statusCode).toBe(200);
    } finally {
      clock.at -= 3601_000;
    }
  });

  it('refuses uploads past the limit with 413 and leaves no file behind', async () => {
    const url: string = (await uploadUrl('name=big.bin')).json().data.uploadUrl;
    const declared = await rawPut(local(url), { 'content-length': String(LIMIT + 1) }, Buffer.alloc(0));
    expect(declared?.status).toBe(413);
    expect(declared?.headers.connection).toBe('close');
    expect(JSON.parse(declared?.text ?? '{}')).toMatchObject({ status: 'fail', errors: [{ field: 'body' }] });

    // No length announced: the stream is cut at the limit.
    const pathname = new URL(url).pathname;
    const streamed = await t.app.inject({
      method: 'PUT',
      url: pathname,
      payload: Readable.from([Buffer.alloc(LIMIT + 10)]),
    });
    expect(streamed.statusCode).toBe(413);
    expect(streamed.json().errors[0].field).toBe('body');
    const exact = await t.app.inject({ method: 'PUT', url: pathname, payload: Readable.from([Buffer.alloc(LIMIT)]) });
    expect(exact.statusCode).toBe(200);
    expect(filesUnder(filesDir()).filter((f) => f.startsWith('.tmp'))).toEqual([]);
  });

  it('drops a half-sent upload: the file never appears and no partial file stays', async () => {
    const url: string = (await uploadUrl('name=cut.bin')).json().data.uploadUrl;
    const key = url.split('/').slice(6).join('/');
    await rawPut(local(url), { 'content-length': '50000' }, randomBytes(20_000), true);
    await eventually(() => filesUnder(filesDir()).every((f) => !f.startsWith('.tmp')));
    expect(filesUnder(filesDir())).not.toContain(key);
    expect((await signedUrl(`name=${key}`)).statusCode).toBe(404);
  });

  it('names every bad input of getUploadUrl and getSignedUrl', async () => {
    const field = async (res: Awaited<ReturnType<TestApp['call']>>) => [res.statusCode, res.json().errors?.[0]?.field];
    expect(await field(await t.call('GET', `/v2/getUploadUrl?project=${projectId}`))).toEqual([400, 'name']);
    expect(await field(await t.call('GET', '/v2/getUploadUrl?name=a.png'))).toEqual([400, 'project']);
    expect(await field(await uploadUrl('name=a.png&type=videos'))).toEqual([400, 'type']);
    expect(await field(await uploadUrl('name=%E2%9C%93%E2%9C%93'))).toEqual([400, 'name']);
    expect(await field(await uploadUrl('name=a.png&storageId=abc'))).toEqual([400, 'bucket']);
    const traversal: string = (await uploadUrl('name=..%2F..%2Fetc%2Fpasswd')).json().data.uploadUrl;
    expect(traversal.endsWith('/passwd')).toBe(true);
    expect(await field(await signedUrl('name=..%2F..%2Fetc%2Fpasswd'))).toEqual([400, 'name']);
    expect(await field(await signedUrl('name=ftp%3A%2F%2Fhost%2Fx'))).toEqual([400, 'name']);
    expect((await signedUrl(`name=${projectId}/assets/${'0'.repeat(24)}/none.png`)).statusCode).toBe(404);
    const other = (await t.call('POST', '/v2/project', { body: { name: 'Other' } })).json().data.project._id;
    expect(await field(await signedUrl(`name=${other}/assets/x/x.png&project=${projectId}`))).toEqual([400, 'name']);
  });

  it('answers other http(s) URLs unchanged: they are public', async () => {
    const external = 'https://cdn.example.com/img/a.jpg?token=abc';
    const res = await signedUrl(`name=${encodeURIComponent(external)}&project=${projectId}`);
    expect(res.json()).toEqual({ status: 'success', data: { signedUrl: external } });
  });

  it('needs import to upload and read to sign; outside the project answers 404', async () => {
    for (const role of ['Manager', 'Lead'] as const) {
      expect((await uploadUrl('name=a.png', users.key[role])).statusCode).toBe(200);
    }
    for (const role of ['Reviewer', 'Labeler'] as const) {
      expect((await uploadUrl('name=a.png', users.key[role])).statusCode).toBe(403);
    }
    expect((await uploadUrl('name=a.png', users.key.outsider)).statusCode).toBe(404);
    const url: string = (await uploadUrl('name=r.txt')).json().data.uploadUrl;
    await request(local(url), { method: 'PUT', body: 'r' });
    expect((await signedUrl(`name=${url}`, users.key.Labeler)).statusCode).toBe(200);
    expect((await signedUrl(`name=${url}`, users.key.outsider)).statusCode).toBe(404);
    expect((await signedUrl(`name=${url}&project=${projectId}`, users.key.outsider)).statusCode).toBe(404);
    expect((await t.call('GET', `/v2/getUploadUrl?name=a.png&project=${projectId}`, { key: null })).statusCode).toBe(
      401,
    );
  });
});

describe.each(ENGINES)('file links in logs on %s', (engine) => {
  it('logs the route pattern of file requests, never a signature or a key', async () => {
    const store = await makeStore(engine);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const config = loadConfig({
      ANNOTARY_DATA_DIR: store.dataDir,
      LOG_LEVEL: 'trace',
      ANNOTARY_PUBLIC_URL: PUBLIC_URL,
    });
    const ctx = await createContext(config, { store, migrated: true, log: pino({ level: 'trace' }, sink) });
    const boot = await bootstrap(store.db, ctx.clock, { plan: config.defaultPlan });
    const app = await buildApp(ctx);
    try {
      const headers = { apikey: boot!.apiKey! };
      const project = (
        await app.inject({ method: 'POST', url: '/v2/project', headers, payload: { name: 'L' } })
      ).json();
      const q = `project=${project.data.project._id}&name=secret-name.txt`;
      const url: string = (await app.inject({ method: 'GET', url: `/v2/getUploadUrl?${q}`, headers })).json().data
        .uploadUrl;
      const { pathname } = new URL(url);
      expect((await app.inject({ method: 'PUT', url: pathname, payload: 'x' })).statusCode).toBe(200);
      const read = (await app.inject({ method: 'GET', url: `/v2/getSignedUrl?name=${url}`, headers })).json();
      const readPath = new URL(read.data.signedUrl).pathname;
      expect((await app.inject({ method: 'GET', url: readPath })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: readPath.replace('/files/', '/files/1') })).statusCode).toBe(403);
      expect((await app.inject({ method: 'PUT', url: readPath, payload: 'y' })).statusCode).toBe(403);
      const log = lines.join('');
      expect(log).toContain('/files/:expiry/:sig/*');
      for (const p of [pathname, readPath]) {
        const [, , expiry, sig] = p.split('/');
        expect(log).not.toContain(sig);
        expect(log).not.toContain(expiry);
      }
      expect(log).not.toContain('secret-name');
    } finally {
      await app.close();
      await ctx.close();
      await store.cleanup();
    }
  });
});
