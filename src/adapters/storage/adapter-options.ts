import type { RetryPolicy } from './storage-adapter.js';

/*
 * What every provider's adapter is built with. Apart from index.ts, which picks the provider and
 * loads its module, so that the providers can import these types without importing index.ts
 * (which imports them).
 */

/**
 * TEST ONLY. Redirects what production always sends to the providers' own endpoints, so the
 * tests can run AWS storages against a local S3 server and IAM_DELEGATED against a local STS.
 * Set per AppContext with setStorageTestOverrides(); nothing in the server sets it and no
 * environment variable reaches it.
 */
export interface TestOverrides {
  /** S3 endpoint for AWS storages (path-style is forced with it). */
  awsEndpoint?: string;
  /** STS endpoint for IAM_DELEGATED role assumption. */
  stsEndpoint?: string;
  /** Microsoft Entra ID authority for SERVICE_PRINCIPAL / MULTI_TENANT. */
  azureAuthorityHost?: string;
  /** Smaller provider pages, so a handful of objects exercises paging. */
  pageSize?: number;
  /** Shorter backoff so retry tests take milliseconds. */
  retry?: Partial<Omit<RetryPolicy, 'retryOnSlowDown'>>;
}

export interface AdapterOptions {
  retry: RetryPolicy;
  overrides: TestOverrides;
  /** The server's own multi-tenant Azure app, for MULTI_TENANT storages. */
  serverAzureApp?: { clientId: string; clientSecret: string } | undefined;
}
