import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotary, AnnotaryError, type ApiBody } from '../../src/client/index.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

function record(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) throw new Error(`not an object: ${String(value)}`);
  return value as Record<string, unknown>;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe.each(ENGINES)('the typed client against a real server on %s', (engine) => {
  let t: TestApp;
  let client: Annotary;
  let onServer: (url: string) => string;
  let base: string;

  beforeAll(async () => {
    // Enterprise plan: the pagination walks below send more than 100 requests a minute.
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    onServer = await listen(t.app);
    base = onServer('http://annotary.test');
    client = new Annotary({ apiKey: t.ownerKey, baseUrl: `${base}/v2`, env: {} });
  });
  afterAll(async () => {
    // The client's keep-alive sockets (undici's global pool) would hold the close open.
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('creates, reads and walks every page of the project list', async () => {
    const created = record(await client.projects.create({ name: 'First' }));
    const firstId = String(record(created.project)._id);
    expect(record(record(await client.projects.get(firstId)).project).name).toBe('First');
    for (let i = 2; i <= 23; i++) await client.projects.create({ name: `P${String(i).padStart(2, '0')}` });

    const all = await collect(client.projects.iterate({ limit: 5, sort: 'name' }));
    const names = all.map((p) => String(record(p).name));
    expect(names).toHaveLength(23);
    expect(new Set(names).size).toBe(23);
    expect(names).toEqual([...names].sort());
    const page = record(await client.projects.list({ page: 5, limit: 5, sort: 'name' }));
    expect(page.total).toBe(23);
    expect((page.projects as unknown[]).length).toBe(3);
  });

  it('imports assets and iterates tasks and assets past one full page', async () => {
    const project = record(record(await client.projects.create({ name: 'Pages' })).project);
    const projectId = String(project._id);
    const assets = Array.from({ length: 2345 }, (_, i) => ({ data: `https://cdn.example.com/${i}.jpg` }));
    const imported = record(await client.assets.import(projectId, { assets }));
    expect(imported.assetsCreated).toBe(2345);

    const tasks = await collect(client.tasks.iterate(projectId));
    expect(new Set(tasks.map((x) => String(record(x)._id))).size).toBe(2345);
    const listed = await collect(client.assets.iterate(projectId, { limit: 1000 }));
    expect(new Set(listed.map((x) => String(record(x).externalId))).size).toBe(2345);
    const firstTask = String(record(tasks[0])._id);
    expect(record(record(await client.tasks.get(firstTask)).task)._id).toBe(firstTask);
  });

  it('throws AnnotaryError with the status, the message and the field errors of the envelope', async () => {
    const bad = await client.projects.update('000000000000000000000000', { name: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(bad).toBeInstanceOf(AnnotaryError);
    expect((bad as AnnotaryError).status).toBe(404);

    const project = record(record(await client.projects.create({ name: 'Errors' })).project);
    // Deliberately wrong (the types would refuse it): the server's answer is what is tested.
    const wrong = { categorySchema: { tools: [{ schemaId: 'a', title: 'A', tool: 'point', color: 'red' }] } };
    const invalid = (await client.projects
      .update(String(project._id), wrong as unknown as ApiBody<'/v2/project/{projectId}', 'post'>)
      .catch((e: unknown) => e)) as AnnotaryError;
    expect(invalid).toBeInstanceOf(AnnotaryError);
    expect(invalid.status).toBe(400);
    expect(invalid.fieldErrors.map((f) => f.field)).toContain('categorySchema.tools[0].color');
    expect(invalid.message).toContain('color');

    const stranger = new Annotary({ apiKey: 'ak_not_a_real_key_000000000000000', baseUrl: `${base}/v2`, env: {} });
    const denied = (await stranger.projects.list().catch((e: unknown) => e)) as AnnotaryError;
    expect(denied.status).toBe(401);
    expect(denied.fieldErrors).toEqual([]);
  });

  it('uploads bytes to an upload URL and instructions as multipart', async () => {
    const project = record(record(await client.projects.create({ name: 'Files' })).project);
    const projectId = String(project._id);
    const { uploadUrl } = record(await client.files.uploadUrl({ project: projectId, name: 'notes.txt' }));
    const bytes = Buffer.from('hello, annotary\n');
    const stored = record(await client.files.put(onServer(String(uploadUrl)), bytes, 'text/plain'));
    expect(record(stored.file).size).toBe(bytes.length);
    const read = record(
      await client.api.GET('/v2/getSignedUrl', { params: { query: { name: String(uploadUrl) } } }).then((r) => r.data),
    );
    const signedUrl = String(record(read.data).signedUrl);
    expect(await (await fetch(onServer(signedUrl))).text()).toBe('hello, annotary\n');

    const guide = new Blob(['# How to label\n'], { type: 'text/markdown' });
    const answer = record(await client.files.uploadInstructions(projectId, guide, 'guide.md'));
    const link = String(answer.instructions);
    expect(link).toContain(`/${projectId}/instructions/`);
    expect(await (await fetch(onServer(link))).text()).toBe('# How to label\n');
    expect(record(record(await client.projects.get(projectId)).project).instructions).toBe(link);
  });

  it('writes an export and downloads its zip without sending the key', async () => {
    const project = record(record(await client.projects.create({ name: 'Export' })).project);
    const projectId = String(project._id);
    await client.assets.import(projectId, { assets: [{ data: 'https://cdn.example.com/e.jpg' }] });
    const { exportPath } = record(await client.exports.create({ project: projectId, format: 'ndjson' }));
    const zip = await client.exports.download(onServer(String(exportPath)));
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
  });
});
