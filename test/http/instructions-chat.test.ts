import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { fillBucket, S3RVER_KEYS, startS3rver } from '../helpers/emulators.js';
import { filesUnder, listen } from '../helpers/files.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

const LIMIT = 65_536;
const LINK = /^http:\/\/annotary\.test\/files\/\d+\/[A-Za-z0-9_-]{43}\//;
const CONVERSATIONS = [
  { messages: [{ id: '1', content: 'Hi', user: { role: 'user', id: 'ann@example.net' } }] },
  { messages: [{ id: '1', content: 'Summarise this', user: { role: 'user', id: 'bob@example.net' } }], topic: 'x' },
  { messages: [] },
];

let s3: Awaited<ReturnType<typeof startS3rver>>;
beforeAll(async () => {
  s3 = await startS3rver();
  await fillBucket(s3.client, 'guides', {});
});
afterAll(() => s3?.stop());

function form(fields: Record<string, string>, file?: { name: string; body: string | Buffer; field?: string }) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append(file.field ?? 'file', new Blob([file.body]), file.name);
  return f;
}

describe.each(ENGINES)('instructions and chat uploads on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let users: RoleUsers;
  let local: (url: string) => string;
  const filesDir = () => path.join(t.ctx.config.dataDir, 'files');

  const post = (
    what: 'instructions' | 'chat',
    payload: FormData | string,
    opts: { key?: string; query?: string } = {},
  ) =>
    t.app.inject({
      method: 'POST',
      url: `/v2/project/${projectId}/${what}${opts.query ?? ''}`,
      headers: {
        apikey: opts.key ?? t.ownerKey,
        ...(typeof payload === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      payload,
    });
  const fieldOf = (res: { statusCode: number; json(): { errors?: { field: string }[] } }) => [
    res.statusCode,
    res.json().errors?.[0]?.field,
  ];

  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: { ANNOTARY_UPLOAD_LIMIT: String(LIMIT), ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Guides' } })).json().data.project._id;
    users = await addRoleUsers(t, projectId, `ic-${engine}`);
    local = await listen(t.app);
  });
  afterAll(() => t.close());

  it('stores the instructions file and sets `instructions` to a link that serves it', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 7)]);
    const res = await post('instructions', form({}, { name: 'Labeling Guide.PDF', body: pdf }));
    expect(res.statusCode, res.body).toBe(200);
    const { instructions, project } = res.json().data;
    expect(instructions).toMatch(LINK);
    expect(instructions).toContain(`/${projectId}/instructions/`);
    expect(instructions.endsWith('/Labeling_Guide.PDF')).toBe(true);
    expect(project.instructions).toBe(instructions);
    expect((await t.call('GET', `/v2/project/${projectId}`)).json().data.project.instructions).toBe(instructions);
    const get = await request(local(instructions));
    expect(get.statusCode).toBe(200);
    expect(get.headers['content-type']).toBe('application/pdf');
    expect(get.headers['content-security-policy']).toBeUndefined();
    expect(Buffer.from(await get.body.arrayBuffer()).equals(pdf)).toBe(true);

    const html = await post('instructions', form({}, { name: 'guide.html', body: '<script>alert(1)</script>' }));
    const page = await request(local(html.json().data.instructions));
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe('sandbox');
    await page.body.dump();
  });

  it('refuses other types, a missing, empty or oversized file, and leaves nothing behind', async () => {
    const before = filesUnder(filesDir());
    expect(fieldOf(await post('instructions', form({}, { name: 'setup.exe', body: 'MZ' })))).toEqual([400, 'file']);
    expect(fieldOf(await post('instructions', form({}, { name: 'noext', body: 'x' })))).toEqual([400, 'file']);
    expect(fieldOf(await post('instructions', form({ note: 'no file' })))).toEqual([400, 'file']);
    expect(fieldOf(await post('instructions', form({}, { name: 'empty.txt', body: '' })))).toEqual([400, 'file']);
    const big = await post('instructions', form({}, { name: 'big.mp4', body: Buffer.alloc(LIMIT + 100) }));
    expect(fieldOf(big)).toEqual([413, 'file']);
    const stray = form({}, { name: 'a.txt', body: 'x', field: 'attachment' });
    expect(fieldOf(await post('instructions', stray))).toEqual([400, 'attachment']);
    expect(
      fieldOf(await post('instructions', form({}, { name: 'a.md', body: '# A' }), { query: '?storageId=x' })),
    ).toEqual([400, 'bucket']);
    expect(filesUnder(filesDir())).toEqual(before);
  });

  it('needs manage for instructions and import for chat; outside the project answers 404', async () => {
    const guide = () => form({}, { name: 'g.txt', body: 'read me' });
    expect((await post('instructions', guide(), { key: users.key.Manager })).statusCode).toBe(200);
    for (const role of ['Lead', 'Reviewer', 'Labeler'] as const) {
      expect((await post('instructions', guide(), { key: users.key[role] })).statusCode).toBe(403);
    }
    expect((await post('instructions', guide(), { key: users.key.outsider })).statusCode).toBe(404);
    expect((await post('chat', 'numberOfConversations=1', { key: users.key.Lead })).statusCode).toBe(201);
    expect((await post('chat', 'numberOfConversations=1', { key: users.key.Reviewer })).statusCode).toBe(403);
    expect((await post('chat', 'numberOfConversations=1', { key: users.key.outsider })).statusCode).toBe(404);
  });

  it('copies instructions into a storage; the link signs a fresh read URL of the object', async () => {
    const created = await t.call('POST', '/v2/storages', {
      body: {
        name: 's3',
        provider: 'CUSTOM_S3',
        host: s3.url,
        publicKey: S3RVER_KEYS.accessKeyId,
        privateKey: 'S3RVER',
      },
    });
    const storageId = created.json().data.storage._id;
    const before = filesUnder(filesDir());
    const res = await post('instructions', form({}, { name: 'remote.txt', body: 'in the bucket' }), {
      query: `?storageId=${storageId}&bucket=guides`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const link = res.json().data.instructions;
    expect(link).toMatch(LINK);
    expect(filesUnder(filesDir())).toEqual(before);
    const hop = await request(local(link));
    expect(hop.statusCode).toBe(302);
    const object = await request(String(hop.headers.location));
    expect(await object.body.text()).toBe('in the bucket');
    const missing = await post('instructions', form({}, { name: 'r.txt', body: 'x' }), {
      query: `?storageId=${storageId}&bucket=no-such-bucket`,
    });
    expect(missing.statusCode).toBe(404);
    expect(filesUnder(filesDir())).toEqual(before);

    // The Python client's storage flow: sign an upload, PUT, keep the URL without its query, read it.
    const up = await t.call(
      'GET',
      `/v2/getUploadUrl?project=${projectId}&name=x.png&storageId=${storageId}&bucket=guides`,
    );
    const uploadUrl: string = up.json().data.uploadUrl;
    expect(uploadUrl.startsWith(`${s3.url}/guides/${projectId}/assets/`)).toBe(true);
    expect((await request(uploadUrl, { method: 'PUT', body: 'png bytes' })).statusCode).toBe(200);
    const name = encodeURIComponent(uploadUrl.split('?')[0]!);
    const signed = await t.call('GET', `/v2/getSignedUrl?name=${name}&project=${projectId}&storageId=${storageId}`);
    expect(await (await request(signed.json().data.signedUrl)).body.text()).toBe('png bytes');

    // Without `bucket` (the Python client sends none), the project's own storage bucket is used
    // when storageId is the storage its settings name; any other storage still needs `bucket`.
    const noBucket = `/v2/getUploadUrl?project=${projectId}&name=y.png&storageId=${storageId}`;
    expect((await t.call('GET', noBucket)).json().errors?.[0]?.field).toBe('bucket');
    const settings = await t.call('POST', `/v2/project/${projectId}`, {
      body: { exportStorageId: storageId, exportStorageBucket: 'guides' },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const own: string = (await t.call('GET', noBucket)).json().data.uploadUrl;
    expect(own.startsWith(`${s3.url}/guides/${projectId}/assets/`)).toBe(true);
    expect((await request(own, { method: 'PUT', body: 'own bucket' })).statusCode).toBe(200);
    const key = encodeURIComponent(new URL(own).pathname.split('/').slice(2).join('/'));
    const read = await t.call('GET', `/v2/getSignedUrl?name=${key}&project=${projectId}&storageId=${storageId}`);
    expect(await (await request(read.json().data.signedUrl)).body.text()).toBe('own bucket');
    // readUrl, what the console keeps as the asset's data: a lasting link of ours that signs a
    // fresh read URL of the object on every use.
    const pair = (await t.call('GET', noBucket)).json().data as { uploadUrl: string; readUrl: string };
    expect(pair.readUrl).toMatch(LINK);
    expect((await request(pair.uploadUrl, { method: 'PUT', body: 'read back' })).statusCode).toBe(200);
    const viaOurs = await request(local(pair.readUrl));
    expect(viaOurs.statusCode).toBe(302);
    expect(await (await request(String(viaOurs.headers.location))).body.text()).toBe('read back');
    const guide = await post('instructions', form({}, { name: 'own.txt', body: 'own guide' }), {
      query: `?storageId=${storageId}`,
    });
    expect(guide.statusCode, guide.body).toBe(200);
    const hopOwn = await request(local(guide.json().data.instructions));
    expect(await (await request(String(hopOwn.headers.location))).body.text()).toBe('own guide');
    const other = await t.call('POST', '/v2/storages', {
      body: {
        name: 'other',
        provider: 'CUSTOM_S3',
        host: s3.url,
        publicKey: S3RVER_KEYS.accessKeyId,
        privateKey: 'S3RVER',
      },
    });
    const otherId = other.json().data.storage._id;
    const elsewhere = await t.call('GET', `/v2/getUploadUrl?project=${projectId}&name=z.png&storageId=${otherId}`);
    expect([elsewhere.statusCode, elsewhere.json().errors?.[0]?.field]).toEqual([400, 'bucket']);
    await t.call('POST', `/v2/project/${projectId}`, { body: { exportStorageId: '', exportStorageBucket: '' } });
  });

  it('creates one chat asset and task per conversation of a JSON file', async () => {
    const file = { name: 'support.json', body: JSON.stringify(CONVERSATIONS) };
    const res = await post('chat', form({ numberOfConversations: '99', namingStrategy: '{"type": "index"}' }, file));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({ status: 'success', data: { assets: { assetsCreated: 3 } } });
    const filters = encodeURIComponent(
      JSON.stringify({ externalId: ['conversation-1', 'conversation-2', 'conversation-3'] }),
    );
    const assets = (await t.call('GET', `/v2/project/${projectId}/assets?limit=10&filters=${filters}`)).json().data
      .assets;
    expect(assets.map((a: { externalId: string }) => a.externalId).sort()).toEqual([
      'conversation-1',
      'conversation-2',
      'conversation-3',
    ]);
    for (const a of assets as { externalId: string; data: string; taskId: string }[]) {
      expect(a.data).toMatch(LINK);
      expect(a.taskId).toMatch(/^[0-9a-f]{24}$/);
      const got = await request(local(a.data));
      expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(await got.body.json()).toEqual(CONVERSATIONS[Number(a.externalId.split('-')[1]) - 1]);
    }
  });

  it('creates empty conversations from a url-encoded form, and names them by the file with NDJSON', async () => {
    const empty = await post('chat', 'numberOfConversations=2&priority=5&namingStrategy=random');
    expect(empty.json().data.assets.assetsCreated).toBe(2);
    const ndjson = CONVERSATIONS.map((c) => JSON.stringify(c)).join('\n');
    const named = await post('chat', form({ namingStrategy: 'fileName' }, { name: 'week 12.ndjson', body: ndjson }));
    expect(named.json().data.assets.assetsCreated).toBe(3);
    const filters = encodeURIComponent(JSON.stringify({ externalId: ['week_12-1', 'week_12-3'] }));
    expect((await t.call('GET', `/v2/project/${projectId}/assets?filters=${filters}`)).json().data.total).toBe(2);
  });

  it('names every bad chat input and writes nothing when any is wrong', async () => {
    const before = filesUnder(filesDir());
    const json = (body: unknown, name = 'c.json') => form({}, { name, body: JSON.stringify(body) });
    expect(fieldOf(await post('chat', 'priority=1'))).toEqual([400, 'numberOfConversations']);
    expect(fieldOf(await post('chat', 'numberOfConversations=0'))).toEqual([400, 'numberOfConversations']);
    expect(fieldOf(await post('chat', 'numberOfConversations=10001'))).toEqual([400, 'numberOfConversations']);
    expect(fieldOf(await post('chat', 'numberOfConversations=2&namingStrategy=bogus'))).toEqual([
      400,
      'namingStrategy',
    ]);
    expect(fieldOf(await post('chat', 'numberOfConversations=2&priority=5000'))).toEqual([400, 'priority']);
    expect(fieldOf(await post('chat', 'numberOfConversations=1&storageId=abc'))).toEqual([400, 'storageId']);
    expect(fieldOf(await post('chat', form({}, { name: 'c.json', body: '[{"messages": [' })))).toEqual([400, 'file']);
    expect(fieldOf(await post('chat', json([])))).toEqual([400, 'file']);
    expect(fieldOf(await post('chat', json([{ messages: [] }, 'hello'])))).toEqual([400, 'file[1]']);
    expect(fieldOf(await post('chat', json([{ messages: 'hi' }])))).toEqual([400, 'file[0].messages']);
    const big = form({}, { name: 'c.json', body: Buffer.alloc(LIMIT + 1, 32) });
    expect(fieldOf(await post('chat', big))).toEqual([413, 'file']);
    // conversation-1 exists already: the import fails as a whole and its files go.
    const clash = await post('chat', form({ namingStrategy: 'index' }, { name: 'c.json', body: JSON.stringify([{}]) }));
    expect(clash.statusCode).toBe(409);
    expect(filesUnder(filesDir())).toEqual(before);
  });
});
