import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Storage } from '@google-cloud/storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SecretBox, SecretBoxError } from '../../src/adapters/crypto/secret-box.js';
import { classifyAzure } from '../../src/adapters/storage/azure.js';
import { createStorageAdapter } from '../../src/adapters/storage/index.js';
import { classifyGcs } from '../../src/adapters/storage/gcs.js';
import { ListingSpool } from '../../src/adapters/storage/listing-spool.js';
import { backoffMs, withRetry } from '../../src/adapters/storage/retry.js';
import { classifyS3 } from '../../src/adapters/storage/s3.js';
import { DEFAULT_RETRY, StorageFailure } from '../../src/adapters/storage/storage-adapter.js';
import { folderPrefix } from '../../src/services/storages/storage.service.js';
import { makeServiceAccount } from '../helpers/fake-servers.js';

describe('SecretBox (AES-256-GCM)', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key, 'storage-secrets');

  it('round-trips with a fresh IV every time, and hides the plaintext', () => {
    const a = box.seal('s3cr3t-value', 'storages/1');
    const b = box.seal('s3cr3t-value', 'storages/1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cr3t');
    expect(Buffer.from(a.split('.')[3]!, 'base64url').toString()).not.toContain('s3cr3t');
    expect(box.open(a, 'storages/1')).toBe('s3cr3t-value');
    expect(box.open(b, 'storages/1')).toBe('s3cr3t-value');
  });

  it('refuses an altered value, another record, another key and another purpose', () => {
    const sealed = box.seal('value', 'storages/1');
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 1;
    parts[3] = ct.toString('base64url');
    expect(() => box.open(parts.join('.'), 'storages/1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'storages/2')).toThrow(/authentication/);
    expect(() => new SecretBox(randomBytes(32), 'storage-secrets').open(sealed, 'storages/1')).toThrow(
      /another server key/,
    );
    expect(() => new SecretBox(key, 'url-signing').open(sealed, 'storages/1')).toThrow(/another server key/);
    expect(() => box.open('plain text', 'storages/1')).toThrow(/format/);
    expect(() => new SecretBox(randomBytes(16), 'x')).toThrow(/32 bytes/);
  });
});

describe('ListingSpool', () => {
  const spoolFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('annotary-listing-'));

  async function readAll(spool: ListingSpool): Promise<string> {
    let out = '';
    for await (const chunk of spool.chunks()) out += chunk.toString();
    return out;
  }

  it('keeps a small listing in memory and answers the inside of a JSON array', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-'));
    const spool = new ListingSpool(dir);
    for (const item of ['a', 'b "quoted"', 'ü/ñ']) await spool.add(item);
    expect(spoolFiles(dir)).toEqual([]);
    expect(JSON.parse(`[${await readAll(spool)}]`)).toEqual(['a', 'b "quoted"', 'ü/ñ']);
    expect(spool.count).toBe(3);
    fs.rmSync(dir, { recursive: true });
  });

  it('moves a large listing to a private file, streams it back in order and removes it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-'));
    const spool = new ListingSpool(dir);
    const items = Array.from(
      { length: 20_000 },
      (_, i) => `https://bucket.example.com/key-${i}?sig=${'x'.repeat(100)}`,
    );
    for (const item of items) await spool.add(item);
    const [file] = spoolFiles(dir);
    expect(file).toBeDefined();
    expect(fs.statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(`[${await readAll(spool)}]`)).toEqual(items);
    expect(spoolFiles(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });

  it('removes its file when discarded after a failure', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-'));
    const spool = new ListingSpool(dir);
    for (let i = 0; i < 20_000; i++) await spool.add(`item-${i}-${'y'.repeat(100)}`);
    expect(spoolFiles(dir)).toHaveLength(1);
    await spool.discard();
    expect(spoolFiles(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('retry with backoff', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 4 };
  const slowDown = () => Object.assign(new Error('slow'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });

  it('retries rate limits up to maxAttempts, and not at all when retryOnSlowDown is false', async () => {
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls < 3) throw slowDown();
      return 'ok';
    };
    expect(await withRetry(flaky, classifyS3, policy)).toBe('ok');
    expect(calls).toBe(3);

    calls = 0;
    await expect(withRetry(flaky, classifyS3, { ...policy, retryOnSlowDown: false })).rejects.toMatchObject({
      kind: 'rate_limited',
      attempts: 1,
    });
    expect(calls).toBe(1);

    calls = 0;
    const always = async () => {
      calls++;
      throw slowDown();
    };
    await expect(withRetry(always, classifyS3, policy)).rejects.toMatchObject({ kind: 'rate_limited', attempts: 4 });
    expect(calls).toBe(4);
  });

  it('tries a reset connection again at once, twice at most, even with retryOnSlowDown=false', async () => {
    let calls = 0;
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const flaky = async () => {
      calls++;
      if (calls < 3) throw reset;
      return 'ok';
    };
    expect(await withRetry(flaky, classifyS3, { ...policy, retryOnSlowDown: false })).toBe('ok');
    calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw reset;
        },
        classifyS3,
        policy,
      ),
    ).rejects.toMatchObject({ kind: 'unreachable', detail: 'ECONNRESET' });
    expect(calls).toBe(3);
  });

  it('never retries other failures', async () => {
    let calls = 0;
    const missing = async () => {
      calls++;
      throw Object.assign(new Error('x'), { name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } });
    };
    await expect(withRetry(missing, classifyS3, policy)).rejects.toMatchObject({ kind: 'no_bucket' });
    expect(calls).toBe(1);
  });

  it('grows exponentially within the cap', () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    for (let i = 0; i < 50; i++) {
      expect(backoffMs(p, 1)).toBeGreaterThanOrEqual(50);
      expect(backoffMs(p, 1)).toBeLessThanOrEqual(100);
      expect(backoffMs(p, 3)).toBeGreaterThanOrEqual(200);
      expect(backoffMs(p, 3)).toBeLessThanOrEqual(400);
      expect(backoffMs(p, 10)).toBeLessThanOrEqual(1000);
    }
  });
});

describe('provider failure classification', () => {
  it('reads each provider error and keeps only codes, never provider text', () => {
    const s3 = (name: string, status: number) =>
      classifyS3(Object.assign(new Error('StringToSign: secret!'), { name, $metadata: { httpStatusCode: status } }));
    expect(s3('SlowDown', 503).kind).toBe('rate_limited');
    expect(s3('NoSuchBucket', 404).kind).toBe('no_bucket');
    expect(s3('SignatureDoesNotMatch', 403)).toMatchObject({ kind: 'denied', detail: 'SignatureDoesNotMatch' });
    expect(s3('PermanentRedirect', 301).kind).toBe('misconfigured');
    expect(s3('InternalError', 500)).toMatchObject({ kind: 'provider_error', detail: 'InternalError (HTTP 500)' });
    expect(s3('SlowDown', 503).message).not.toContain('secret');
    const refused = Object.assign(new Error('connect'), {
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyS3(refused)).toMatchObject({ kind: 'unreachable', detail: 'ECONNREFUSED' });
    const dns = new AggregateError([Object.assign(new Error('x'), { code: 'ENOTFOUND' })]);
    expect(classifyS3(dns)).toMatchObject({ kind: 'unreachable', detail: 'ENOTFOUND' });

    expect(classifyGcs({ code: 429, errors: [{ reason: 'rateLimitExceeded' }] }, true).kind).toBe('rate_limited');
    expect(classifyGcs({ code: 404, errors: [{ reason: 'notFound' }] }, true).kind).toBe('no_bucket');
    expect(classifyGcs({ response: { status: 400, data: { error: 'invalid_grant' } } }, true).kind).toBe('denied');

    expect(classifyAzure({ code: 'ServerBusy', statusCode: 503 }, true).kind).toBe('rate_limited');
    expect(classifyAzure({ code: 'ContainerNotFound', statusCode: 404 }, true).kind).toBe('no_bucket');
    expect(classifyAzure({ code: 'AuthenticationFailed', statusCode: 403 }, true).kind).toBe('denied');
    expect(classifyAzure({ name: 'AuthenticationError', statusCode: 401 }, true).kind).toBe('denied');
    expect(new StorageFailure('denied', 'x').attempts).toBe(1);
  });

  it('turns a path into a folder prefix', () => {
    expect(folderPrefix('')).toBe('');
    expect(folderPrefix('/')).toBe('');
    expect(folderPrefix('cats')).toBe('cats/');
    expect(folderPrefix('/cats/deep/')).toBe('cats/deep/');
  });
});

describe('S3 fast read signing', () => {
  afterEach(() => vi.useRealTimers());

  const keys = ['plain.jpg', 'a b/c+d(1)!.jpg', 'ünï/çødé.png', "quote'*~.txt", 'x%20y/z', 'deep/er/still/file.tar.gz'];
  const cases: {
    name: string;
    conn: Parameters<typeof createStorageAdapter>[0];
    client: ConstructorParameters<typeof S3Client>[0];
    bucket: string;
  }[] = [
    {
      name: 'CUSTOM_S3 path-style',
      conn: {
        provider: 'CUSTOM_S3',
        endpoint: 'http://127.0.0.1:9000',
        region: 'us-east-1',
        keys: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      },
      client: { region: 'us-east-1', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true },
      bucket: 'photos',
    },
    {
      name: 'AWS virtual-hosted',
      conn: {
        provider: 'AWS',
        region: 'eu-central-1',
        useAccelerateEndpoint: false,
        keys: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      },
      client: { region: 'eu-central-1' },
      bucket: 'photos',
    },
    {
      name: 'AWS bucket with dots',
      conn: {
        provider: 'AWS',
        region: 'eu-west-1',
        useAccelerateEndpoint: false,
        keys: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      },
      client: { region: 'eu-west-1' },
      bucket: 'my.dotted.bucket',
    },
    {
      name: 'AWS accelerate',
      conn: {
        provider: 'AWS',
        region: 'us-west-2',
        useAccelerateEndpoint: true,
        keys: { accessKeyId: 'AK', secretAccessKey: 'SK' },
      },
      client: { region: 'us-west-2', useAccelerateEndpoint: true },
      bucket: 'photos',
    },
  ];

  for (const c of cases) {
    it(`gives the very URL getSignedUrl gives: ${c.name}`, async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-03-04T05:06:07Z'));
      const adapter = await createStorageAdapter(c.conn, { retry: DEFAULT_RETRY, overrides: {} });
      const sdk = new S3Client({
        ...c.client,
        credentials: { accessKeyId: 'AK', secretAccessKey: 'SK' },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      try {
        for (const key of keys) {
          const ours = await adapter.signReadUrl({ bucket: c.bucket, key }, 3600);
          const theirs = await getSignedUrl(sdk, new GetObjectCommand({ Bucket: c.bucket, Key: key }), {
            expiresIn: 3600,
          });
          expect(ours).toBe(theirs);
        }
      } finally {
        adapter.close();
        sdk.destroy();
      }
    });
  }
});

describe('GCS fast V4 read signing', () => {
  afterEach(() => vi.useRealTimers());
  const sa = makeServiceAccount();
  const keys = ['plain.jpg', 'a b/c+d(1)!.jpg', 'ünï/çødé.png', "quote'*~.txt", 'x%20y/z'];

  for (const endpoint of [undefined, 'http://127.0.0.1:4443']) {
    it(`gives the very URL the SDK gives (${endpoint ?? 'storage.googleapis.com'})`, async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-03-04T05:06:07.890Z'));
      const adapter = await createStorageAdapter(
        { provider: 'GCP', serviceAccount: sa.credentials, ...(endpoint ? { endpoint } : {}) },
        { retry: DEFAULT_RETRY, overrides: {} },
      );
      const sdk = new Storage({ credentials: sa.credentials, ...(endpoint ? { apiEndpoint: endpoint } : {}) });
      for (const key of keys) {
        const ours = await adapter.signReadUrl({ bucket: 'photos', key }, 3600);
        const [theirs] = await sdk
          .bucket('photos')
          .file(key)
          .getSignedUrl({ version: 'v4', action: 'read', expires: Date.now() + 3600 * 1000 });
        expect(ours).toBe(theirs);
      }
    });
  }
});
