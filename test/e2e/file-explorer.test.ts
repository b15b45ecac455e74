import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStorageTestOverrides } from '../../src/adapters/storage/index.js';
import { buildJobRegistry } from '../../src/job-handlers.js';
import { JobWorker } from '../../src/jobs/index.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { createEmulatorStorages, createStorage } from '../helpers/emulator-storages.js';
import { fillBucket, fillContainer, startAzurite, startS3rver } from '../helpers/emulators.js';
import { type FakeGcs, makeServiceAccount, startFakeGcs } from '../helpers/fake-servers.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';

/*
 * POST /file-explorer [client] against real S3 (s3rver) and Azure (Azurite) servers, and our GCS
 * JSON API server driven by the real @google-cloud/storage client: browsing
 * one folder level at a time, paged by scrollToken, and importing files or whole folders,
 * in the background past 1000 files.
 */

const OBJECTS: Record<string, string> = {
  'a.jpg': 'A',
  'notes.txt': 'n',
  'cats/1.jpg': 'cat one',
  'cats/2.PNG': 'cat two',
  'cats/3.txt': 'not an image',
  'cats/deep/4.jpg': 'cat four',
  'cats/': '',
  'dogs/1.jpg': 'dog',
};

let s3: Awaited<ReturnType<typeof startS3rver>>;
let azurite: Awaited<ReturnType<typeof startAzurite>>;
let gcs: FakeGcs;
const sa = makeServiceAccount();

beforeAll(async () => {
  [s3, azurite, gcs] = await Promise.all([startS3rver(), startAzurite(), startFakeGcs()]);
  await fillBucket(s3.client, 'photos', OBJECTS);
  await fillContainer(azurite.client, 'photos', OBJECTS);
  gcs.buckets.set('photos', new Map(Object.entries(OBJECTS).map(([k, v]) => [k, Buffer.from(v)])));
  gcs.keys.set(sa.credentials.client_email, sa.publicKey);
});
afterAll(async () => {
  await Promise.all([s3?.stop(), azurite?.stop(), gcs?.close()]);
});

type Level = {
  folders: { name: string; path: string }[];
  files: { name: string; key: string }[];
  scrollToken: string | null;
};

describe.each(ENGINES)('file explorer on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  const storages: Record<string, string> = {};

  const explore = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/v2/file-explorer', { body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: { ANNOTARY_DEFAULT_PLAN: 'enterprise', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
    });
    setStorageTestOverrides(t.ctx, { retry: { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 3 } });
    Object.assign(storages, await createEmulatorStorages(t, s3, azurite));
    storages.gcs = await createStorage(t, { name: 'gcs', provider: 'GCP', credentials: sa.credentials, host: gcs.url });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Explorer' } })).json().data.project._id;
  });
  afterAll(() => t.close());

  for (const provider of ['s3', 'azure', 'gcs'] as const) {
    it(`${provider}: browses one level at a time, paged by scrollToken, with an extension filter`, async () => {
      const storageId = storages[provider];
      const root = (await explore({ storageId, bucket: 'photos' })) as Level;
      expect(root.folders).toEqual([
        { name: 'cats', path: 'cats/' },
        { name: 'dogs', path: 'dogs/' },
      ]);
      expect(root.files).toEqual([
        { name: 'a.jpg', key: 'a.jpg' },
        { name: 'notes.txt', key: 'notes.txt' },
      ]);
      expect(root.scrollToken).toBeNull();
      // Two entries per page: folders and files of one level, gathered across pages.
      const seen: Level[] = [];
      let scrollToken: string | undefined;
      do {
        const page = (await explore({ storageId, bucket: 'photos', folder: 'cats', limit: 2, scrollToken })) as Level;
        seen.push(page);
        scrollToken = page.scrollToken ?? undefined;
      } while (scrollToken && seen.length < 10);
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.flatMap((p) => p.folders.map((f) => f.path))).toEqual(['cats/deep/']);
      expect(seen.flatMap((p) => p.files.map((f) => f.key))).toEqual(['cats/1.jpg', 'cats/2.PNG', 'cats/3.txt']);
      const images = (await explore({
        storageId,
        bucket: 'photos',
        folder: '/cats/',
        extensions: ['jpg', '.png'],
      })) as Level;
      expect(images.files.map((f) => f.name)).toEqual(['1.jpg', '2.PNG']);
    });
  }

  it('imports the chosen files, then the whole folder, skipping what is already there', async () => {
    const storageId = storages.s3;
    await t.call('POST', `/v2/batches/${pid}`, { body: { batches: 'cats' } });
    const chosen = await explore({
      storageId,
      bucket: 'photos',
      folder: 'cats',
      upload: true,
      projectId: pid,
      files: ['1.jpg'],
    });
    expect(chosen.upload).toEqual({ queued: false, assetsCreated: 1, skipped: 0 });
    const whole = await explore({
      storageId,
      bucket: 'photos',
      folder: 'cats',
      extensions: ['jpg', 'png'],
      upload: true,
      projectId: pid,
      batches: ['cats'],
    });
    expect(whole.upload).toEqual({ queued: false, assetsCreated: 2, skipped: 1 });
    const assets = (await t.call('GET', `/v2/project/${pid}/assets?limit=100`)).json().data.assets as {
      externalId: string;
      data: string;
    }[];
    expect(assets.map((a) => a.externalId).sort()).toEqual(['1.jpg', '2.PNG', 'deep/4.jpg']);
    // The asset's link signs a fresh read URL of the object on every use.
    const deep = assets.find((a) => a.externalId === 'deep/4.jpg');
    const link = await t.app.inject({ method: 'GET', url: new URL(deep?.data ?? '').pathname });
    expect(link.statusCode).toBe(302);
    expect(await (await fetch(link.headers.location as string)).text()).toBe('cat four');
  });

  it('imports more than 1000 files in the background through a durable job', async () => {
    const files = Array.from({ length: 1001 }, (_, i) => `bulk-${i}.jpg`);
    const res = await explore({
      storageId: storages.azure,
      bucket: 'photos',
      folder: 'bulk',
      upload: true,
      projectId: pid,
      files,
    });
    expect(res.upload).toMatchObject({ queued: true, jobId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const worker = new JobWorker({ store: t.store, registry: buildJobRegistry(t.ctx), pollIntervalMs: 20 });
    worker.start();
    try {
      await waitFor(async () => {
        const job = await t.store.db
          .selectFrom('jobs')
          .select('status')
          .where('id', '=', res.upload.jobId)
          .executeTakeFirst();
        return job?.status === 'done';
      }, 'the storage import job');
    } finally {
      await worker.stop();
    }
    const total = (
      await t.call(
        'GET',
        `/v2/project/${pid}/assets?limit=1&filters=${encodeURIComponent('{"externalId":"bulk-1000.jpg"}')}`,
      )
    ).json().data.total;
    expect(total).toBe(1);
    expect((await t.call('GET', `/v2/project/${pid}/tasks?limit=1`)).json().data.total).toBe(1004);
    // The job has no request of its own: it kept the address of the one that queued it.
    const payload = await t.store.db
      .selectFrom('jobs')
      .select('payload')
      .where('id', '=', res.upload.jobId)
      .executeTakeFirst();
    expect(JSON.parse(payload?.payload ?? '{}')).toMatchObject({ linkBase: 'http://annotary.test' });
  });

  it('refuses bad requests naming the field', async () => {
    const bad = async (body: Record<string, unknown>, status: number, field?: string) => {
      const res = await t.call('POST', '/v2/file-explorer', { body });
      expect(res.statusCode, res.body).toBe(status);
      if (field) expect(res.json().errors[0].field).toBe(field);
    };
    await bad({ bucket: 'photos' }, 400, 'storageId');
    await bad({ storageId: storages.s3, bucket: 'photos', upload: true }, 400, 'projectId');
    await bad({ storageId: storages.s3, bucket: 'photos', limit: 0 }, 400, 'limit');
    await bad({ storageId: 'ffffffffffffffffffffffff', bucket: 'photos' }, 404);
    await bad({ storageId: storages.s3, bucket: 'nope' }, 404);
    await bad({ storageId: storages.s3, bucket: 'photos', upload: true, projectId: 'ffffffffffffffffffffffff' }, 404);
  });
});
