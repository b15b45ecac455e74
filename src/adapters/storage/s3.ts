import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner, getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assumedRoleCredentials, type AwsCredentials } from './aws-sessions.js';
import type { AdapterOptions } from './adapter-options.js';
import { withRetry } from './retry.js';
import {
  type Connection,
  type ObjectRef,
  type StorageAdapter,
  StorageFailure,
  isFolderMarker,
  networkCode,
  safeCode,
} from './storage-adapter.js';

type S3Connection = Extract<Connection, { provider: 'AWS' | 'CUSTOM_S3' }>;

const RATE_LIMIT_CODES = new Set(['SlowDown', 'TooManyRequests', 'TooManyRequestsException', 'RequestLimitExceeded']);
const DENIED_CODES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AccountProblem',
  'AllAccessDisabled',
  'InvalidSecurity',
]);
const REGION_CODES = new Set([
  'PermanentRedirect',
  'AuthorizationHeaderMalformed',
  'IllegalLocationConstraintException',
]);

export function classifyS3(err: unknown): StorageFailure {
  const net = networkCode(err);
  if (net) return new StorageFailure('unreachable', net);
  const e = err as {
    name?: string;
    $metadata?: { httpStatusCode?: number };
    $response?: { headers?: Record<string, string> };
  };
  const code = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  if (RATE_LIMIT_CODES.has(code) || status === 429 || status === 503) {
    return new StorageFailure('rate_limited', `${safeCode(code)} (HTTP ${status ?? '?'})`);
  }
  if (code === 'NoSuchBucket') return new StorageFailure('no_bucket', code);
  if (DENIED_CODES.has(code) || status === 401 || status === 403) return new StorageFailure('denied', safeCode(code));
  if (REGION_CODES.has(code) || status === 301) {
    const region = e.$response?.headers?.['x-amz-bucket-region'];
    const where = region && /^[a-z0-9-]{1,32}$/.test(region) ? ` (${region})` : '';
    return new StorageFailure('misconfigured', `the bucket is in another region${where} than the storage's region`);
  }
  if (code === 'InvalidBucketName') return new StorageFailure('misconfigured', 'InvalidBucketName');
  return new StorageFailure('provider_error', `${safeCode(code)}${status ? ` (HTTP ${status})` : ''}`);
}

/** RFC 3986 escaping, as the SDK's (encodeURIComponent plus !'()*). */
function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeKey(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/** `bucket/key...` of a path-style URL path. */
function pathStyle(url: URL): ObjectRef | undefined {
  const rest = url.pathname.replace(/^\/+/, '');
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const bucket = decodeKey(rest.slice(0, slash));
  const key = decodeKey(rest.slice(slash + 1));
  return bucket && key ? { bucket, key } : undefined;
}

function virtualHosted(url: URL, bucket: string): ObjectRef | undefined {
  const key = decodeKey(url.pathname.replace(/^\/+/, ''));
  return key ? { bucket, key } : undefined;
}

// bucket.s3.amazonaws.com, bucket.s3.eu-west-1.amazonaws.com, bucket.s3-eu-west-1.amazonaws.com,
// bucket.s3-accelerate.amazonaws.com, bucket.s3.dualstack.eu-west-1.amazonaws.com (and .cn)
const AWS_VIRTUAL = /^(.+)\.s3(?:[.-][a-z0-9-]+)*(?:\.dualstack\.[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$/;
const AWS_PATH = /^s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com(?:\.cn)?$/;

function locateS3(conn: S3Connection, endpoint: string | undefined, url: URL): ObjectRef | undefined {
  if (url.protocol === 's3:') return url.hostname ? virtualHosted(url, url.hostname) : undefined;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const host = url.hostname.toLowerCase();
  if (endpoint) {
    const base = new URL(endpoint);
    if (host === base.hostname.toLowerCase() && url.port === base.port) return pathStyle(url);
    if (host.endsWith(`.${base.hostname.toLowerCase()}`))
      return virtualHosted(url, host.slice(0, -base.hostname.length - 1));
    if (conn.provider === 'CUSTOM_S3') return undefined;
  }
  if (AWS_PATH.test(host)) return pathStyle(url);
  const m = AWS_VIRTUAL.exec(host);
  return m?.[1] ? virtualHosted(url, m[1]) : undefined;
}

/** AWS and every S3-compatible service (path-style on a custom endpoint), with the official SDK. */
export function s3Adapter(conn: S3Connection, opts: AdapterOptions): StorageAdapter {
  // Tests point AWS storages at a local S3 server; nothing else sets this (see index.ts).
  const endpoint = conn.provider === 'CUSTOM_S3' ? conn.endpoint : opts.overrides.awsEndpoint;
  let sessionExpiresAt = Number.POSITIVE_INFINITY;
  let credentials: AwsCredentials | (() => Promise<AwsCredentials>);
  if (conn.provider === 'AWS' && conn.role) {
    const role = conn.role;
    credentials = async () => {
      const session = await assumedRoleCredentials({
        roleArn: role.arn,
        externalId: role.externalId,
        region: conn.region,
        stsEndpoint: opts.overrides.stsEndpoint,
        retry: opts.retry,
      });
      sessionExpiresAt = session.expiresAt;
      return session.credentials;
    };
  } else if (conn.keys) {
    credentials = { accessKeyId: conn.keys.accessKeyId, secretAccessKey: conn.keys.secretAccessKey };
  } else {
    throw new StorageFailure('misconfigured', 'the storage has no access keys');
  }
  const client = new S3Client({
    region: conn.region,
    credentials,
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    useAccelerateEndpoint: conn.provider === 'AWS' && conn.useAccelerateEndpoint && !endpoint,
    // Our own retry loop decides about SlowDown (retryOnSlowDown); the SDK must not retry too.
    maxAttempts: 1,
    // Presigned PUTs must not demand a checksum of bytes the signer never saw.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 60_000 },
  });

  /** Seconds a URL signed now may live: a delegated session's end caps it. */
  async function lifetime(expiresIn: number): Promise<number> {
    // Resolve the credentials first so a delegated session's end is known before signing.
    if (typeof credentials === 'function') await credentials();
    const left = Math.floor((sessionExpiresAt - Date.now()) / 1000) - 60;
    return Math.max(60, Math.min(expiresIn, left));
  }

  async function presign(command: GetObjectCommand | PutObjectCommand, expiresIn: number): Promise<string> {
    try {
      return await getSignedUrl(client, command, { expiresIn: await lifetime(expiresIn) });
    } catch (err) {
      throw err instanceof StorageFailure ? err : classifyS3(err);
    }
  }

  /*
   * Listings sign thousands of GETs in a row. getSignedUrl resolves the endpoint and runs the
   * whole middleware stack each time (about 0.5 ms); instead, the SDK signs one probe URL per
   * bucket, which gives the endpoint (scheme, host, path-style or virtual-hosted prefix), and the
   * SDK's own S3 presigner signs each object's request on that endpoint (about 0.08 ms). The
   * URLs are byte-for-byte those of getSignedUrl (a test compares them).
   */
  const presigner = new S3RequestPresigner({ ...client.config });
  const endpoints = new Map<string, Promise<{ url: URL; prefix: string; region: string }>>();
  const PROBE = 'annotary-probe';
  function endpointOf(bucket: string) {
    let found = endpoints.get(bucket);
    if (!found) {
      found = (async () => {
        const url = new URL(await presign(new GetObjectCommand({ Bucket: bucket, Key: PROBE }), 60));
        if (!url.pathname.endsWith(`/${PROBE}`)) throw new StorageFailure('misconfigured', 'unexpected S3 endpoint');
        const region = url.searchParams.get('X-Amz-Credential')?.split('/')[2] ?? conn.region;
        return { url, prefix: url.pathname.slice(0, -PROBE.length), region };
      })();
      endpoints.set(bucket, found);
      found.catch(() => endpoints.delete(bucket));
    }
    return found;
  }

  async function presignRead(ref: ObjectRef, expiresIn: number): Promise<string> {
    const { url, prefix, region } = await endpointOf(ref.bucket);
    try {
      const signed = await presigner.presign(
        {
          method: 'GET',
          protocol: url.protocol,
          hostname: url.hostname,
          ...(url.port ? { port: Number(url.port) } : {}),
          path: prefix + ref.key.split('/').map(escapeUri).join('/'),
          query: { 'x-id': 'GetObject' },
          headers: { host: url.host },
        },
        { expiresIn: await lifetime(expiresIn), signingRegion: region },
      );
      const params = signed.query ?? {};
      const query = Object.keys(params)
        .sort()
        .map((k) => `${escapeUri(k)}=${escapeUri(String(params[k]))}`)
        .join('&');
      return `${url.protocol}//${url.host}${signed.path}?${query}`;
    } catch (err) {
      throw err instanceof StorageFailure ? err : classifyS3(err);
    }
  }

  return {
    async *listKeys(bucket, prefix) {
      let token: string | undefined;
      do {
        const page = await withRetry(
          () =>
            client.send(
              new ListObjectsV2Command({
                Bucket: bucket,
                ...(prefix ? { Prefix: prefix } : {}),
                ...(token ? { ContinuationToken: token } : {}),
                MaxKeys: opts.overrides.pageSize ?? 1000,
              }),
            ),
          classifyS3,
          opts.retry,
        );
        const keys: string[] = [];
        for (const item of page.Contents ?? []) if (item.Key && !isFolderMarker(item.Key)) keys.push(item.Key);
        yield keys;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    signReadUrl: presignRead,
    signUploadUrl: (ref, expiresIn) => presign(new PutObjectCommand({ Bucket: ref.bucket, Key: ref.key }), expiresIn),
    locate: (url) => locateS3(conn, endpoint, url),
    close: () => client.destroy(),
  };
}
