import { SecretBox, SecretBoxError } from '../../adapters/crypto/secret-box.js';
import { isoNow } from '../../adapters/clock.js';
import {
  type AdapterOptions,
  DEFAULT_RETRY,
  type ObjectRef,
  type StorageAdapter,
  StorageFailure,
  createStorageAdapter,
  serverCloudIdentity,
  storageTestOverrides,
} from '../../adapters/storage/index.js';
import { ListingSpool } from '../../adapters/storage/listing-spool.js';
import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { AppError, badRequest, notFound } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import { parseQueryBoolean } from '../../schemas/common.js';
import type { ListFilesQuery, ListStoragesQuery, StorageCreateRequest } from '../../schemas/storage.js';
import * as repo from '../../store/repositories/storage.repository.js';
import type { StorageRow } from '../../store/repositories/storage.repository.js';
import { demandOrgAdmin, type Principal } from '../../access.js';
import { type StorageSecrets, connectionOf, normalizeStorage, storageView } from './storage-rules.js';
import { assertStorageHostLiteral, assertStorageHostReachable } from './storage-host-policy.js';

/** Lifetime of the signed URLs we hand out (reads and uploads). */
export const SIGNED_URL_SECONDS = 3600;

/** Purpose of the key derived from the server key for storage secrets (see SecretBox). */
export const STORAGE_SECRETS_PURPOSE = 'storage-secrets';
/** Binds a sealed value to its storage row: copied into another row, it does not open. */
export const secretsAad = (storageId: string) => `storages/${storageId}`;

const boxes = new WeakMap<Buffer, SecretBox>();
function box(key: Buffer): SecretBox {
  let b = boxes.get(key);
  if (!b) boxes.set(key, (b = new SecretBox(key, STORAGE_SECRETS_PURPOSE)));
  return b;
}

export async function listStorages(ctx: AppContext, p: Principal, q: ListStoragesQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 10;
  const { rows, total } = await repo.listStorages(ctx.store.db, {
    orgId: p.orgId,
    id: q._id,
    offset: (page - 1) * limit,
    limit,
  });
  return { storages: rows.map(storageView), total };
}

/** Registers a storage. Contacts no provider: it may be unreachable from here (DECISIONS 8). */
export async function createStorage(ctx: AppContext, p: Principal, body: StorageCreateRequest) {
  demandOrgAdmin(p);
  const { settings, secrets } = normalizeStorage(body, serverCloudIdentity());
  assertStorageHostLiteral(settings.host, ctx.config.storageAllowPrivate);
  const id = newId(ctx.clock.now());
  const hasSecrets = Object.keys(secrets).length > 0;
  const row: StorageRow = {
    id,
    organization_id: p.orgId,
    ...settings,
    secrets: hasSecrets ? box(ctx.secretKey).seal(JSON.stringify(secrets), secretsAad(id)) : null,
    created_by: p.email,
    created_at: isoNow(ctx.clock),
    deleted: 0,
    deleted_at: null,
  };
  // Field names only: which secrets were given is recorded, never what they are.
  const fields = Object.keys(body).filter((k) => body[k as keyof StorageCreateRequest] !== undefined);
  await ctx.store.db.transaction().execute(async (trx) => {
    await repo.insertStorage(trx, row);
    await audit(trx, ctx.clock, p, { operation: 'storage.create', targetType: 'storage', targetId: id, fields });
  });
  ctx.log.info({ storageId: id, provider: row.provider }, 'storage created');
  return storageView(row);
}

async function loadStorage(ctx: AppContext, orgId: string, storageId: string): Promise<StorageRow> {
  // Not an id (or one PostgreSQL cannot even compare, with a NUL in it): no such storage.
  const row = isId(storageId) ? await repo.findStorage(ctx.store.db, orgId, storageId) : undefined;
  if (!row) throw notFound('storage');
  return row;
}

/** Soft delete (the record stays, flagged); its secrets are erased. */
export async function deleteStorage(ctx: AppContext, p: Principal, storageId: string) {
  const row = await loadStorage(ctx, p.orgId, storageId);
  demandOrgAdmin(p);
  await ctx.store.db.transaction().execute(async (trx) => {
    await repo.softDeleteStorage(trx, row.id, isoNow(ctx.clock));
    await audit(trx, ctx.clock, p, { operation: 'storage.delete', targetType: 'storage', targetId: row.id });
  });
  ctx.log.info({ storageId: row.id }, 'storage deleted');
  return { storage: { ...storageView(row), deleted: true } };
}

function openSecrets(ctx: AppContext, row: StorageRow): StorageSecrets {
  if (row.secrets === null) return {};
  try {
    return JSON.parse(box(ctx.secretKey).open(row.secrets, secretsAad(row.id))) as StorageSecrets;
  } catch (err) {
    if (!(err instanceof SecretBoxError)) throw err;
    ctx.log.error({ storageId: row.id, reason: err.message }, 'storage secrets do not open with the server key');
    throw new AppError(
      'UNAVAILABLE',
      'the secrets of this storage cannot be read with the server key; an administrator must restore the key ' +
        'it was saved under (see docs/storages.md, key rotation)',
    );
  }
}

async function adapterFor(ctx: AppContext, row: StorageRow, retryOnSlowDown: boolean): Promise<StorageAdapter> {
  const overrides = storageTestOverrides(ctx);
  const opts: AdapterOptions = {
    retry: { ...DEFAULT_RETRY, ...overrides.retry, retryOnSlowDown },
    overrides,
    serverAzureApp: serverCloudIdentity().azureApp,
  };
  // Names are judged by what they resolve to now; a storage made before the rule is judged too.
  const host =
    row.provider === 'AZURE' && row.host && !/^https?:\/\//i.test(row.host)
      ? `${row.public_key ?? ''}.${row.host}`
      : row.host;
  if (host) await assertStorageHostReachable(host, ctx.config.storageAllowPrivate);
  try {
    return await createStorageAdapter(connectionOf(row, openSecrets(ctx, row)), opts);
  } catch (err) {
    throw providerError(ctx, row, err, { retryOnSlowDown });
  }
}

/** A provider failure as the client hears it (DECISIONS 8): a 4xx that says which, never a 500. */
function providerError(
  ctx: AppContext,
  row: StorageRow,
  err: unknown,
  at: { bucket?: string; retryOnSlowDown: boolean },
): unknown {
  if (!(err instanceof StorageFailure)) return err;
  ctx.log.warn(
    { storageId: row.id, provider: row.provider, kind: err.kind, detail: err.detail, attempts: err.attempts },
    'storage provider failure',
  );
  const what = `storage "${row.name}"`;
  switch (err.kind) {
    case 'rate_limited':
      return new AppError(
        'RATE_LIMITED',
        at.retryOnSlowDown
          ? `the storage provider kept rate limiting requests (${err.detail}) after ${err.attempts} attempts; try again later`
          : `the storage provider is rate limiting requests (${err.detail}); try again later, or pass retryOnSlowDown=true`,
        undefined,
        { 'retry-after': '5' },
      );
    case 'no_bucket':
      return new AppError('NOT_FOUND', `bucket "${at.bucket ?? ''}" does not exist in ${what} (${err.detail})`);
    case 'denied':
      return new AppError('FORBIDDEN', `the storage provider refused the credentials of ${what} (${err.detail})`);
    case 'unreachable':
      return badRequest(`the storage host of ${what} could not be reached (${err.detail})`);
    case 'misconfigured':
      return badRequest(`${what} cannot be used: ${err.detail}`);
    case 'provider_error':
      return badRequest(`the storage provider refused the request of ${what} (${err.detail})`);
  }
}

/** `photos/2024` -> `photos/2024/`: a folder, listed recursively; empty lists the bucket. */
export function folderPrefix(path: string): string {
  const trimmed = path.trim().replace(/^\/+/, '');
  if (!trimmed) return '';
  return trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export interface FileListing {
  total: number;
  /** The items joined by commas, ready to sit inside a JSON array; readable once. */
  chunks(): AsyncGenerator<string | Buffer, void, undefined>;
}

/**
 * Every file under `path` (recursively), as signed read URLs or as keys. All provider pages
 * are fetched before anything is answered, so a failure on any page is still a clean 4xx;
 * meanwhile the items wait in a spool, never more than one provider page in memory.
 */
export async function listFiles(
  ctx: AppContext,
  p: Principal,
  storageId: string,
  q: ListFilesQuery,
): Promise<FileListing> {
  const row = await loadStorage(ctx, p.orgId, storageId);
  const signed = parseQueryBoolean(q.getSignedUrls, true);
  const retryOnSlowDown = parseQueryBoolean(q.retryOnSlowDown, true);
  const bucket = q.bucketName.trim();
  const adapter = await adapterFor(ctx, row, retryOnSlowDown);
  const spool = new ListingSpool();
  try {
    for await (const keys of adapter.listKeys(bucket, folderPrefix(q.path ?? ''))) {
      for (const key of keys) {
        await spool.add(signed ? await adapter.signReadUrl({ bucket, key }, SIGNED_URL_SECONDS) : key);
      }
    }
  } catch (err) {
    await spool.discard();
    throw providerError(ctx, row, err, { bucket, retryOnSlowDown });
  } finally {
    adapter.close();
  }
  return { total: spool.count, chunks: () => spool.chunks() };
}

/**
 * Runs `use` with the adapter of an organization's storage (404 when it has none by that id),
 * mapping provider failures to their 4xx answers and closing the adapter after.
 */
export async function withStorage<T>(
  ctx: AppContext,
  orgId: string,
  storageId: string,
  bucket: string,
  use: (adapter: StorageAdapter) => Promise<T>,
): Promise<T> {
  const row = await loadStorage(ctx, orgId, storageId);
  const adapter = await adapterFor(ctx, row, true);
  try {
    return await use(adapter);
  } catch (err) {
    throw providerError(ctx, row, err, { bucket, retryOnSlowDown: true });
  } finally {
    adapter.close();
  }
}

/** Which object to sign: a bucket and key, or a URL of the storage (s3://, gs://, https). */
export type ObjectTarget = { bucket: string; key: string } | { url: string; bucket?: string };

export interface UrlSigner {
  read(target: ObjectTarget): Promise<string>;
  upload(target: { bucket: string; key: string }): Promise<string>;
  close(): void;
}

/**
 * Signs many URLs of one storage of the organization (asset listings): one adapter, one
 * delegated session or delegation key. Unknown, deleted or foreign storages answer 404.
 */
export async function storageUrlSigner(ctx: AppContext, orgId: string, storageId: string): Promise<UrlSigner> {
  const row = await loadStorage(ctx, orgId, storageId);
  const adapter = await adapterFor(ctx, row, true);
  const refOf = (target: ObjectTarget): ObjectRef => {
    if ('key' in target) {
      if (!target.bucket || !target.key) throw badRequest('a bucket and a key are needed to sign a URL');
      return { bucket: target.bucket, key: target.key };
    }
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw badRequest('the file URL is not a valid URL');
    }
    const ref = adapter.locate(url);
    if (!ref) throw badRequest(`the file URL does not point into storage "${row.name}"`);
    if (target.bucket && target.bucket !== ref.bucket) {
      throw badRequest(`the file URL is in bucket "${ref.bucket}", not "${target.bucket}"`);
    }
    return ref;
  };
  const run = async (fn: () => Promise<string>, bucket: string) => {
    try {
      return await fn();
    } catch (err) {
      throw providerError(ctx, row, err, { bucket, retryOnSlowDown: true });
    }
  };
  return {
    read(target) {
      const ref = refOf(target);
      return run(() => adapter.signReadUrl(ref, SIGNED_URL_SECONDS), ref.bucket);
    },
    upload(target) {
      const ref = refOf(target);
      return run(() => adapter.signUploadUrl(ref, SIGNED_URL_SECONDS), ref.bucket);
    },
    close: () => adapter.close(),
  };
}

/**
 * A signed read URL for one object of a storage of the organization, for assets imported with
 * `storage` and `GET /getSignedUrl?storageId=`.
 */
export async function signObjectUrl(ctx: AppContext, orgId: string, storageId: string, target: ObjectTarget) {
  const signer = await storageUrlSigner(ctx, orgId, storageId);
  try {
    return await signer.read(target);
  } finally {
    signer.close();
  }
}

/** A signed upload (PUT) URL for one object, for `GET /getUploadUrl?storageId=`. */
export async function signObjectUploadUrl(
  ctx: AppContext,
  orgId: string,
  storageId: string,
  target: { bucket: string; key: string },
) {
  const signer = await storageUrlSigner(ctx, orgId, storageId);
  try {
    return await signer.upload(target);
  } finally {
    signer.close();
  }
}
