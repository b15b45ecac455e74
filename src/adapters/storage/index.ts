import type { AdapterOptions, TestOverrides } from './adapter-options.js';
import type { Connection, StorageAdapter } from './storage-adapter.js';

export * from './adapter-options.js';
export * from './storage-adapter.js';

const overridesByOwner = new WeakMap<object, TestOverrides>();

/** TEST ONLY: see TestOverrides. `owner` is the AppContext the overrides apply to. */
export function setStorageTestOverrides(owner: object, overrides: TestOverrides): void {
  overridesByOwner.set(owner, overrides);
}

export function storageTestOverrides(owner: object): TestOverrides {
  return overridesByOwner.get(owner) ?? {};
}

/**
 * The server's own cloud identities, read from the providers' usual environment variables:
 * AWS credentials come from the SDK's default chain (used for IAM_DELEGATED only); the Azure
 * multi-tenant app from AZURE_CLIENT_ID / AZURE_CLIENT_SECRET; ANNOTARY_AWS_USER_ARN names the
 * server's AWS identity to customers (answered as s3UserArn, for their role's trust policy).
 */
export function serverCloudIdentity(env: Record<string, string | undefined> = process.env) {
  const clientId = env.AZURE_CLIENT_ID?.trim();
  const clientSecret = env.AZURE_CLIENT_SECRET?.trim();
  return {
    awsUserArn: env.ANNOTARY_AWS_USER_ARN?.trim() || undefined,
    azureApp: clientId && clientSecret ? { clientId, clientSecret } : undefined,
  };
}

/**
 * The adapter of a connection's provider. Building one contacts nobody. Each provider's module
 * (and its SDK) is loaded on first use: a server whose organizations use one provider, or none,
 * does not carry the other SDKs (together some 30 MiB of memory).
 */
export async function createStorageAdapter(conn: Connection, opts: AdapterOptions): Promise<StorageAdapter> {
  switch (conn.provider) {
    case 'AWS':
    case 'CUSTOM_S3':
      return (await import('./s3.js')).s3Adapter(conn, opts);
    case 'GCP':
      return (await import('./gcs.js')).gcsAdapter(conn, opts);
    case 'AZURE':
      return (await import('./azure.js')).azureAdapter(conn, opts);
  }
}
