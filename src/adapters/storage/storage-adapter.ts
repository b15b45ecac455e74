/*
 * One small interface in front of every cloud storage provider. The storage service decrypts a
 * storage's secrets into a Connection, asks the factory (index.ts) for an adapter and never
 * touches a vendor SDK itself. Adapters speak in StorageFailure, never in HTTP.
 */

export interface S3Keys {
  accessKeyId: string;
  secretAccessKey: string;
}

export type Connection =
  | {
      provider: 'AWS';
      region: string;
      useAccelerateEndpoint: boolean;
      /** IAM_USER: the storage's own keys. */
      keys?: S3Keys;
      /** IAM_DELEGATED: a role assumed with the server's own AWS credentials. */
      role?: { arn: string; externalId: string };
    }
  | { provider: 'CUSTOM_S3'; endpoint: string; region: string; keys: S3Keys }
  | { provider: 'GCP'; serviceAccount: ServiceAccount; endpoint?: string }
  | { provider: 'AZURE'; account: string; endpoint?: string; auth: AzureAuth };

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  project_id?: string;
  universe_domain?: string;
  [key: string]: unknown;
}

export type AzureAuth =
  | { kind: 'ACCOUNT_KEY'; accountKey: string }
  | { kind: 'SERVICE_PRINCIPAL'; tenantId: string; clientId: string; clientSecret: string }
  /** The server's own multi-tenant app registration, consented to in the customer's tenant. */
  | { kind: 'MULTI_TENANT'; tenantId: string };

export interface ObjectRef {
  bucket: string;
  key: string;
}

export interface StorageAdapter {
  /**
   * Every object key under `prefix`, recursively, one provider page at a time: memory holds
   * one page, whatever the size of the bucket. Rate-limit answers are retried per page as the
   * adapter's RetryPolicy says.
   */
  listKeys(bucket: string, prefix: string): AsyncGenerator<string[], void, undefined>;
  /**
   * One folder level under `prefix` (empty, or ending in `/`): the sub-folders (their full
   * prefixes, ending in `/`) and the files (full keys) of one provider page, from `page.token`.
   */
  listLevel(bucket: string, prefix: string, page: LevelPage): Promise<FolderLevel>;
  /** A URL anyone can GET the object with until it expires. */
  signReadUrl(ref: ObjectRef, expiresInSeconds: number): Promise<string>;
  /** A URL anyone can PUT the object's bytes to until it expires. */
  signUploadUrl(ref: ObjectRef, expiresInSeconds: number): Promise<string>;
  /** Where a URL of this storage points (s3://, gs://, https forms), or undefined if not here. */
  locate(url: URL): ObjectRef | undefined;
  /** Releases the SDK client (sockets); the adapter is not used afterwards. */
  close(): void;
}

export interface LevelPage {
  /** The provider's continuation token of the previous page; absent for the first. */
  token?: string | undefined;
  size: number;
}

export interface FolderLevel {
  folders: string[];
  files: string[];
  /** The token of the next page; absent on the last. */
  nextToken?: string | undefined;
}

/** Which kind of provider trouble; the service maps each kind to one answer. */
export type FailureKind =
  | 'rate_limited'
  | 'no_bucket'
  | 'denied'
  | 'unreachable'
  /** The storage's settings cannot work (wrong region, malformed key); detail says which. */
  | 'misconfigured'
  /** The provider refused for a reason we do not recognise; detail carries its error code. */
  | 'provider_error';

/**
 * A provider failure, described for a client: `detail` is a provider error code or a fixed
 * phrase of ours, never the provider's free text (which can quote request details).
 */
export class StorageFailure extends Error {
  attempts = 1;
  constructor(
    readonly kind: FailureKind,
    readonly detail: string,
  ) {
    super(`${kind}: ${detail}`);
    this.name = 'StorageFailure';
  }
}

export interface RetryPolicy {
  /** Retry rate-limit answers with exponential backoff (else fail at the first one). */
  retryOnSlowDown: boolean;
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retryOnSlowDown: true,
  maxAttempts: 8,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
};

/** Network error codes that mean "the host could not be reached". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** The network error code of an error or of its causes, if it is a connection failure. */
export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError') return 'timeout';
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors[0] && typeof errors[0] === 'object') {
      const inner = networkCode(errors[0]);
      if (inner) return inner;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A provider's error code when it looks like one (letters, digits, `_.-`), else `error`: never free text. */
export function safeCode(code: unknown): string {
  return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : 'error';
}

/** A key that names a folder placeholder (`photos/`), not a file. */
export function isFolderMarker(key: string): boolean {
  return key.endsWith('/');
}
