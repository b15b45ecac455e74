import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';

/*
 * Real storage servers started by the tests as child processes, each on a free port (listen on
 * 0, port read from the server's own banner), each stopped by the returned stop().
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Emulator {
  url: string;
  stop(): Promise<void>;
}

function startChild(
  command: string,
  args: string[],
  banner: RegExp,
  what: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within 20 s: ${out.slice(-500)}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = banner.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before listening: ${out.slice(-500)}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** s3rver's built-in account: it checks the access key id (not the signature). */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** s3rver under `node --openssl-legacy-provider` (its listing needs MD5 via the legacy provider). */
export async function startS3rver(): Promise<Emulator & { client: S3Client; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-s3rver-'));
  const bin = path.join(ROOT, 'node_modules/s3rver/bin/s3rver.js');
  const { child, port } = await startChild(
    process.execPath,
    ['--openssl-legacy-provider', bin, '-d', dir, '-a', '127.0.0.1', '-p', '0', '--silent', '--no-vhost-buckets'],
    /listening on 127\.0\.0\.1:(\d+)/,
    's3rver',
  );
  const url = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: url,
    forcePathStyle: true,
    credentials: S3RVER_KEYS,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    url,
    client,
    dir,
    async stop() {
      client.destroy();
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function fillBucket(
  client: S3Client,
  bucket: string,
  objects: Record<string, string | Buffer>,
): Promise<void> {
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  for (const [key, body] of Object.entries(objects)) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  }
}

/** Azurite's well-known development account. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/**
 * Azurite's blob service. With `tls` it serves https and accepts OAuth bearer tokens ("basic"
 * level: issuer, audience and lifetime checked), which user-delegation SAS needs.
 */
export async function startAzurite(tls?: {
  certFile: string;
  keyFile: string;
}): Promise<Emulator & { serviceUrl: string; client: BlobServiceClient }> {
  const { child, port } = await startChild(
    path.join(ROOT, 'node_modules/.bin/azurite-blob'),
    [
      '--inMemoryPersistence',
      '--disableTelemetry',
      '--silent',
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      '0',
      '--skipApiVersionCheck',
      '--loose',
      ...(tls ? ['--oauth', 'basic', '--cert', tls.certFile, '--key', tls.keyFile] : []),
    ],
    /listens on https?:\/\/127\.0\.0\.1:(\d+)/,
    'azurite',
  );
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const serviceUrl = `${url}/${AZURITE_ACCOUNT}`;
  const client = new BlobServiceClient(serviceUrl, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
  return { url, serviceUrl, client, stop: () => stopChild(child) };
}

/** A throw-away self-signed certificate for 127.0.0.1 (openssl), in a temporary folder. */
export function selfSignedCert(): { certFile: string; keyFile: string; cert: string; key: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  const res = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  if (res.status !== 0) throw new Error(`openssl failed: ${res.stderr.toString()}`);
  return {
    certFile,
    keyFile,
    cert: fs.readFileSync(certFile, 'utf8'),
    key: fs.readFileSync(keyFile, 'utf8'),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export async function fillContainer(
  client: BlobServiceClient,
  container: string,
  objects: Record<string, string | Buffer>,
): Promise<void> {
  const c = client.getContainerClient(container);
  await c.create();
  for (const [name, body] of Object.entries(objects))
    await c.getBlockBlobClient(name).upload(body, Buffer.byteLength(body));
}
