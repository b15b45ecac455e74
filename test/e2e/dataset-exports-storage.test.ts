import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { type DatasetProject, datasetProject, unzipBytes } from '../helpers/dataset-fixture.js';
import {
  AZURITE_ACCOUNT,
  AZURITE_KEY,
  S3RVER_KEYS,
  fillBucket,
  fillContainer,
  startAzurite,
  startS3rver,
} from '../helpers/emulators.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Dataset exports (coco, yolo, voc, masks, cvat) of a project with exportStorageEnabled, against
 * real storage servers (s3rver, Azurite): each zip lands under exportStoragePath, the answer names
 * the bucket and key, its signed link opens the zip the storage holds, and the export history
 * lists it with its format.
 */

const FORMATS: Record<string, string> = {
  coco: 'annotations/instances.json',
  yolo: 'data.yaml',
  voc: 'Annotations/street.xml',
  masks: 'class/street.png',
  cvat: 'annotations.xml',
};

interface Provider {
  storage: Record<string, string>;
  /** Keys under `prefix` in the bucket (container), read with the provider's own SDK. */
  list(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

async function s3Provider(): Promise<Provider> {
  const s3 = await startS3rver();
  await fillBucket(s3.client, 'datasets', {});
  return {
    storage: {
      provider: 'CUSTOM_S3',
      host: s3.url,
      publicKey: S3RVER_KEYS.accessKeyId,
      privateKey: S3RVER_KEYS.secretAccessKey,
    },
    async list(prefix) {
      const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: 'datasets', Prefix: prefix }));
      return (listed.Contents ?? []).map((o) => o.Key ?? '');
    },
    stop: () => s3.stop(),
  };
}

async function azureProvider(): Promise<Provider> {
  const azurite = await startAzurite();
  await fillContainer(azurite.client, 'datasets', {});
  return {
    storage: { provider: 'AZURE', host: azurite.serviceUrl, publicKey: AZURITE_ACCOUNT, privateKey: AZURITE_KEY },
    async list(prefix) {
      const keys: string[] = [];
      for await (const blob of azurite.client.getContainerClient('datasets').listBlobsFlat({ prefix })) {
        keys.push(blob.name);
      }
      return keys;
    },
    stop: () => azurite.stop(),
  };
}

const PROVIDERS = { s3rver: s3Provider, azurite: azureProvider };

describe.each(ENGINES.flatMap((engine) => Object.keys(PROVIDERS).map((p) => [engine, p] as const)))(
  'dataset exports to the export storage on %s (%s)',
  (engine, providerName) => {
    let t: TestApp;
    let provider: Provider;
    let project: DatasetProject;

    beforeAll(async () => {
      provider = await PROVIDERS[providerName as keyof typeof PROVIDERS]();
      t = await makeTestApp(engine, {
        env: { ANNOTARY_DEFAULT_PLAN: 'enterprise', ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true' },
      });
      project = await datasetProject(t, await listen(t.app));
      const storage = await t.call('POST', '/v2/storages', { body: { name: 'datasets', ...provider.storage } });
      expect(storage.statusCode, storage.body).toBe(201);
      const settings = await t.call('POST', `/v2/project/${project.pid}`, {
        body: {
          exportStorageEnabled: true,
          exportStorageId: storage.json().data.storage._id,
          exportStorageBucket: 'datasets',
          exportStoragePath: 'team/exports',
        },
      });
      expect(settings.statusCode, settings.body).toBe(200);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await provider?.stop();
    });

    it('writes each format to the bucket, says where, and the link opens the dataset', async () => {
      const keys: string[] = [];
      for (const [format, entry] of Object.entries(FORMATS)) {
        const res = await t.call('GET', `/v2/export?project=${project.pid}&format=${format}`);
        expect(res.statusCode, res.body).toBe(200);
        const { exportPath, storage } = res.json().data as {
          exportPath: string;
          storage: { bucket: string; key: string; storageId: string };
        };
        expect(storage?.bucket, res.body).toBe('datasets');
        expect(storage.key).toMatch(/^team\/exports\/[0-9a-f]{24}\.zip$/);
        expect(decodeURIComponent(new URL(exportPath).pathname)).toContain(`datasets/${storage.key}`);
        keys.push(storage.key);

        const got = await fetch(exportPath);
        expect(got.status, format).toBe(200);
        const entries = await unzipBytes(Buffer.from(await got.arrayBuffer()));
        expect([...entries.keys()], format).toContain(entry);
        expect(entries.get('README.md')?.toString('utf8'), format).toMatch(/polyline/);
        if (format === 'coco') {
          const coco = JSON.parse(entries.get(entry)?.toString('utf8') ?? '{}') as {
            annotations: { bbox: number[]; category_id: number }[];
          };
          expect(coco.annotations.find((a) => a.category_id === 1)?.bbox).toEqual([4.5, 6, 20, 10]);
        }
      }
      expect((await provider.list('team/exports/')).sort()).toEqual([...keys].sort());

      const history = await t.call('GET', `/v2/project/${project.pid}/exports`);
      const listed = history.json().data.exports as { format: string; storage: boolean; exportPath: string | null }[];
      expect(listed.map((e) => e.format)).toEqual(Object.keys(FORMATS).reverse());
      expect(listed.every((e) => e.storage && e.exportPath)).toBe(true);
    });

    it('refuses a dataset format of issues before anything reaches the bucket', async () => {
      const before = await provider.list('team/exports/');
      const res = await t.call('GET', `/v2/export?project=${project.pid}&format=coco&type=issue`);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].field).toBe('format');
      expect(await provider.list('team/exports/')).toEqual(before);
    });
  },
);
