import { ClientSecretCredential } from '@azure/identity';
import {
  BlobSASPermissions,
  BlobServiceClient,
  SASProtocol,
  StorageSharedKeyCredential,
  type UserDelegationKey,
  generateBlobSASQueryParameters,
} from '@azure/storage-blob';
import { createHash } from 'node:crypto';

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

type AzureConnection = Extract<Connection, { provider: 'AZURE' }>;

const DENIED_CODES = new Set([
  'AuthenticationFailed',
  'AuthorizationFailure',
  'AuthorizationPermissionMismatch',
  'AuthorizationProtocolMismatch',
  'InsufficientAccountPermissions',
  'InvalidAuthenticationInfo',
  'KeyBasedAuthenticationNotPermitted',
  'NoAuthenticationInformation',
]);

export function classifyAzure(err: unknown, listing: boolean): StorageFailure {
  const net = networkCode(err);
  const e = err as { name?: string; code?: string; statusCode?: number };
  // @azure/identity: AuthenticationError, AggregateAuthenticationError, AuthenticationRequiredError
  if (
    e.name === 'AuthenticationError' ||
    e.name === 'AggregateAuthenticationError' ||
    e.name === 'AuthenticationRequiredError'
  ) {
    if (net) return new StorageFailure('unreachable', `Microsoft Entra ID: ${net}`);
    return new StorageFailure('denied', 'Microsoft Entra ID refused the client credentials');
  }
  if (e.name === 'CredentialUnavailableError') {
    return new StorageFailure('misconfigured', 'no Azure application credentials are available for this storage');
  }
  if (net || e.code === 'REQUEST_SEND_ERROR') return new StorageFailure('unreachable', net ?? 'REQUEST_SEND_ERROR');
  const status = e.statusCode;
  const code = e.code ?? '';
  if (code === 'ServerBusy' || code === 'TooManyRequests' || status === 429 || status === 503) {
    return new StorageFailure('rate_limited', `${safeCode(code || 'ServerBusy')} (HTTP ${status ?? 503})`);
  }
  if (code === 'ContainerNotFound' || (listing && status === 404))
    return new StorageFailure('no_bucket', safeCode(code));
  if (DENIED_CODES.has(code) || status === 401 || status === 403) return new StorageFailure('denied', safeCode(code));
  if (code === 'InvalidResourceName') return new StorageFailure('misconfigured', 'InvalidResourceName');
  return new StorageFailure('provider_error', `${safeCode(code)}${status ? ` (HTTP ${status})` : ''}`);
}

/**
 * The blob service URL: `host` as given when it has a scheme (Azurite:
 * `http://127.0.0.1:10000/devstoreaccount1`), `https://<account>.<host>` for a bare endpoint
 * suffix (a sovereign cloud: `blob.core.chinacloudapi.cn`), else the public cloud.
 */
export function azureServiceUrl(account: string, host: string | undefined): string {
  if (!host) return `https://${account}.blob.core.windows.net`;
  if (/^https?:\/\//i.test(host)) return host.replace(/\/+$/, '');
  return `https://${account}.${host.replace(/^\.+|\/+$/g, '')}`;
}

// One credential per app registration and tenant: the identity library caches tokens in it.
const credentials = new Map<string, ClientSecretCredential>();
// User-delegation keys (one Entra ID token + one call) are reused for many signatures.
const delegationKeys = new Map<string, { key: UserDelegationKey; expiresAt: number }>();
const DELEGATION_KEY_MS = 24 * 3600_000;
/**
 * The storage service version our SAS tokens are signed for. Pinned rather than the SDK's
 * newest: Azure accepts every released version, while emulators (Azurite) and sovereign clouds
 * lag behind and would compute another string-to-sign for a version they do not know yet.
 */
export const SAS_VERSION = '2025-11-05';

function credentialFor(tenantId: string, clientId: string, secret: string, authorityHost: string | undefined) {
  const id = createHash('sha256')
    .update([tenantId, clientId, secret, authorityHost ?? ''].join('\n'))
    .digest('hex');
  let cred = credentials.get(id);
  if (!cred) {
    cred = new ClientSecretCredential(tenantId, clientId, secret, {
      ...(authorityHost ? { authorityHost, disableInstanceDiscovery: true } : {}),
    });
    credentials.set(id, cred);
  }
  return { cred, id };
}

/** Azure Blob Storage: shared-key SAS for account keys, user-delegation SAS for Entra ID apps. */
export function azureAdapter(conn: AzureConnection, opts: AdapterOptions): StorageAdapter {
  const serviceUrl = azureServiceUrl(conn.account, conn.endpoint);
  const pipeline = { retryOptions: { maxTries: 1 } };
  const protocol = serviceUrl.startsWith('https:') ? SASProtocol.Https : SASProtocol.HttpsAndHttp;
  let client: BlobServiceClient;
  let sharedKey: StorageSharedKeyCredential | undefined;
  let delegationId = '';
  if (conn.auth.kind === 'ACCOUNT_KEY') {
    sharedKey = new StorageSharedKeyCredential(conn.account, conn.auth.accountKey);
    client = new BlobServiceClient(serviceUrl, sharedKey, pipeline);
  } else {
    const clientId = conn.auth.kind === 'SERVICE_PRINCIPAL' ? conn.auth.clientId : opts.serverAzureApp?.clientId;
    const secret = conn.auth.kind === 'SERVICE_PRINCIPAL' ? conn.auth.clientSecret : opts.serverAzureApp?.clientSecret;
    if (!clientId || !secret) {
      throw new StorageFailure(
        'misconfigured',
        'this server has no Azure application of its own for MULTI_TENANT storages (AZURE_CLIENT_ID, AZURE_CLIENT_SECRET)',
      );
    }
    const { cred, id } = credentialFor(conn.auth.tenantId, clientId, secret, opts.overrides.azureAuthorityHost);
    delegationId = `${serviceUrl}\n${id}`;
    client = new BlobServiceClient(serviceUrl, cred, pipeline);
  }

  async function delegationKey(validForMs: number): Promise<UserDelegationKey> {
    const now = Date.now();
    const cached = delegationKeys.get(delegationId);
    if (cached && cached.expiresAt - now > validForMs + 10 * 60_000) return cached.key;
    const startsOn = new Date(now - 5 * 60_000);
    const expiresOn = new Date(now + Math.max(DELEGATION_KEY_MS, validForMs + 3600_000));
    const key = await withRetry(
      () => client.getUserDelegationKey(startsOn, expiresOn),
      (err) => classifyAzure(err, false),
      opts.retry,
    );
    delegationKeys.set(delegationId, { key, expiresAt: expiresOn.getTime() });
    return key;
  }

  async function sign(ref: ObjectRef, permissions: string, expiresIn: number): Promise<string> {
    const blob = client.getContainerClient(ref.bucket).getBlobClient(ref.key);
    const values = {
      version: SAS_VERSION,
      containerName: ref.bucket,
      blobName: ref.key,
      permissions: BlobSASPermissions.parse(permissions),
      startsOn: new Date(Date.now() - 5 * 60_000),
      expiresOn: new Date(Date.now() + expiresIn * 1000),
      protocol,
    };
    const sas = sharedKey
      ? generateBlobSASQueryParameters(values, sharedKey)
      : generateBlobSASQueryParameters(values, await delegationKey(expiresIn * 1000), conn.account);
    return `${blob.url}?${sas.toString()}`;
  }

  return {
    async *listKeys(container, prefix) {
      const containerClient = client.getContainerClient(container);
      let marker: string | undefined;
      do {
        const page = await withRetry(
          async () => {
            const pages = containerClient.listBlobsFlat(prefix ? { prefix } : {}).byPage({
              maxPageSize: opts.overrides.pageSize ?? 5000,
              ...(marker ? { continuationToken: marker } : {}),
            });
            const next = await pages.next();
            return next.done ? undefined : next.value;
          },
          (err) => classifyAzure(err, true),
          opts.retry,
        );
        if (!page) return;
        yield page.segment.blobItems.map((b) => b.name).filter((name) => !isFolderMarker(name));
        marker = page.continuationToken || undefined;
      } while (marker);
    },
    signReadUrl: (ref, expiresIn) => sign(ref, 'r', expiresIn),
    signUploadUrl: (ref, expiresIn) => sign(ref, 'cw', expiresIn),
    locate(url) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
      const base = new URL(serviceUrl);
      const basePath = base.pathname.replace(/\/+$/, '');
      const sameService = url.host.toLowerCase() === base.host.toLowerCase() && url.pathname.startsWith(`${basePath}/`);
      const publicCloud =
        !conn.endpoint && url.hostname.toLowerCase().startsWith(`${conn.account.toLowerCase()}.blob.`);
      if (!sameService && !publicCloud) return undefined;
      const rest = url.pathname.slice(sameService ? basePath.length + 1 : 1);
      const slash = rest.indexOf('/');
      if (slash <= 0) return undefined;
      try {
        return { bucket: decodeURIComponent(rest.slice(0, slash)), key: decodeURIComponent(rest.slice(slash + 1)) };
      } catch {
        return undefined;
      }
    },
    close: () => undefined,
  };
}
