import { createPrivateKey, randomBytes } from 'node:crypto';
import type { Connection, ServiceAccount } from '../../adapters/storage/index.js';
import { type FieldError, invalid } from '../../errors.js';
import type { StorageCreateRequest, StorageProvider } from '../../schemas/storage.js';
import type { StorageRow } from '../../store/repositories/storage.repository.js';
import type { StorageTable } from '../../store/schema.js';

/*
 * The per-provider rules of the create-storage body (api-v2 Storages table, DECISIONS 8), and
 * the two shapes a storage takes: its response view and its adapter Connection.
 */

/** The write-only fields, sealed together at rest. */
export interface StorageSecrets {
  privateKey?: string;
  credentials?: ServiceAccount;
  azureClientSecret?: string;
}

/** The columns of a new storage row that come from the request. */
/** The stored, non-secret settings of a storage: the table's columns, provider narrowed. */
export type StorageSettings = Omit<
  Pick<
    StorageTable,
    | 'name'
    | 'provider'
    | 'region'
    | 's3_access_type'
    | 's3_role_arn'
    | 's3_external_id'
    | 's3_user_arn'
    | 'host'
    | 'azure_auth_type'
    | 'azure_tenant_id'
    | 'azure_client_id'
    | 'public_key'
    | 'use_accelerate_endpoint'
  >,
  'provider'
> & { provider: StorageProvider };

export const DEFAULT_AWS_REGION = 'eu-central-1';
/** Signing region of S3-compatible services that were given none. */
export const DEFAULT_CUSTOM_S3_REGION = 'us-east-1';

const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;
const AZURE_ACCOUNT = /^[a-z0-9]{3,24}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const TENANT = /^[A-Za-z0-9.-]{1,256}$/;

/** Trimmed text, or undefined for absent, null and blank values. */
function text(v: string | null | undefined): string | undefined {
  const t = typeof v === 'string' ? v.trim() : '';
  return t === '' ? undefined : t;
}

/** An endpoint URL: scheme optional (https assumed), http(s) only, no query or fragment. */
function endpointUrl(raw: string, errors: FieldError[]): string | undefined {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    errors.push({ field: 'host', message: 'must be a URL such as https://s3.example.com' });
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username) {
    errors.push({ field: 'host', message: 'must be an http(s) URL without credentials, query or fragment' });
    return undefined;
  }
  return url.href.replace(/\/+$/, '');
}

function serviceAccount(raw: StorageCreateRequest['credentials'], errors: FieldError[]): ServiceAccount | undefined {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      errors.push({ field: 'credentials', message: 'must be a service-account key: an object or its JSON text' });
      return undefined;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ field: 'credentials', message: 'must be a service-account key object' });
    return undefined;
  }
  const sa = value as Record<string, unknown>;
  const before = errors.length;
  if (sa.type !== undefined && sa.type !== 'service_account') {
    errors.push({ field: 'credentials.type', message: 'must be service_account' });
  }
  if (typeof sa.client_email !== 'string' || !sa.client_email.includes('@')) {
    errors.push({ field: 'credentials.client_email', message: 'is required (the service account e-mail)' });
  }
  if (typeof sa.private_key !== 'string') {
    errors.push({ field: 'credentials.private_key', message: 'is required' });
  } else {
    try {
      createPrivateKey(sa.private_key);
    } catch {
      errors.push({ field: 'credentials.private_key', message: 'is not a PEM private key' });
    }
  }
  return errors.length === before ? (sa as ServiceAccount) : undefined;
}

/**
 * Checks a create-storage body against its provider's rules and splits it into row settings
 * and secrets. Fields of other providers are ignored and not stored. Every problem is reported
 * at once, each on its field.
 */
export function normalizeStorage(
  body: StorageCreateRequest,
  server: { awsUserArn: string | undefined },
): { settings: StorageSettings; secrets: StorageSecrets } {
  const errors: FieldError[] = [];
  const need = (field: string, value: string | undefined, why: string): string | undefined => {
    if (value === undefined) errors.push({ field, message: `is required ${why}` });
    return value;
  };
  const name = text(body.name);
  if (!name) errors.push({ field: 'name', message: 'must not be blank' });
  const settings: StorageSettings = {
    name: name ?? '',
    provider: body.provider,
    region: null,
    s3_access_type: null,
    s3_role_arn: null,
    s3_external_id: null,
    s3_user_arn: null,
    host: null,
    azure_auth_type: null,
    azure_tenant_id: null,
    azure_client_id: null,
    public_key: null,
    use_accelerate_endpoint: 0,
  };
  const secrets: StorageSecrets = {};
  const host = text(body.host);
  const publicKey = text(body.publicKey);
  const privateKey = text(body.privateKey);

  switch (body.provider) {
    case 'AWS': {
      const region = text(body.region) ?? DEFAULT_AWS_REGION;
      if (!AWS_REGION.test(region))
        errors.push({ field: 'region', message: 'must be an AWS region such as eu-central-1' });
      if (host) {
        errors.push({
          field: 'host',
          message: 'is not used with AWS; use the CUSTOM_S3 provider for an S3-compatible endpoint',
        });
      }
      const accessType = body.s3AccessType ?? 'IAM_USER';
      Object.assign(settings, {
        region,
        s3_access_type: accessType,
        use_accelerate_endpoint: body.useAccelerateEndpoint ? 1 : 0,
      });
      if (accessType === 'IAM_USER') {
        settings.public_key = need('publicKey', publicKey, 'for AWS IAM_USER (the access key id)') ?? null;
        const secret = need('privateKey', privateKey, 'for AWS IAM_USER (the secret access key)');
        if (secret) secrets.privateKey = secret;
      } else {
        const arn = need('s3RoleArn', text(body.s3RoleArn), 'for AWS IAM_DELEGATED (the role to assume)');
        if (arn && !ROLE_ARN.test(arn)) {
          errors.push({
            field: 's3RoleArn',
            message: 'must be a role ARN such as arn:aws:iam::123456789012:role/name',
          });
        }
        const externalId = text(body.s3ExternalId) ?? randomBytes(16).toString('hex');
        if (!EXTERNAL_ID.test(externalId)) {
          errors.push({ field: 's3ExternalId', message: 'must be 2 to 1224 letters, digits or +=,.@:/-_' });
        }
        Object.assign(settings, {
          s3_role_arn: arn ?? null,
          s3_external_id: externalId,
          s3_user_arn: server.awsUserArn ?? null,
        });
      }
      break;
    }
    case 'CUSTOM_S3': {
      const endpoint = need('host', host, 'for CUSTOM_S3 (the S3-compatible endpoint URL)');
      settings.host = (endpoint && endpointUrl(endpoint, errors)) ?? null;
      settings.region = text(body.region) ?? null;
      settings.public_key = need('publicKey', publicKey, 'for CUSTOM_S3 (the access key id)') ?? null;
      const secret = need('privateKey', privateKey, 'for CUSTOM_S3 (the secret access key)');
      if (secret) secrets.privateKey = secret;
      break;
    }
    case 'GCP': {
      if (body.credentials === undefined) {
        errors.push({ field: 'credentials', message: 'is required for GCP (the service-account key)' });
      } else {
        const sa = serviceAccount(body.credentials, errors);
        if (sa) secrets.credentials = sa;
      }
      settings.host = (host && endpointUrl(host, errors)) ?? null;
      break;
    }
    case 'AZURE': {
      const account = need('publicKey', publicKey, 'for AZURE (the storage account name)');
      if (account && !AZURE_ACCOUNT.test(account)) {
        errors.push({
          field: 'publicKey',
          message: 'must be a storage account name: 3 to 24 lowercase letters and digits',
        });
      }
      const auth = body.azureAuthType ?? 'ACCOUNT_KEY';
      Object.assign(settings, { public_key: account ?? null, azure_auth_type: auth });
      if (host && /^https?:\/\//i.test(host)) settings.host = endpointUrl(host, errors) ?? null;
      else if (host && /^\.?[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d{1,5})?\/?$/i.test(host)) {
        settings.host = host.replace(/^\.+|\/+$/g, '');
      } else if (host) {
        errors.push({
          field: 'host',
          message: 'must be a blob service URL or an endpoint suffix such as blob.core.chinacloudapi.cn',
        });
      }
      if (auth === 'ACCOUNT_KEY') {
        const key = need('privateKey', privateKey, 'for AZURE ACCOUNT_KEY (the account key)');
        if (key && !BASE64.test(key)) errors.push({ field: 'privateKey', message: 'must be a base64 account key' });
        else if (key) secrets.privateKey = key;
      } else {
        const tenant = need('azureTenantId', text(body.azureTenantId), `for AZURE ${auth}`);
        if (tenant && !TENANT.test(tenant))
          errors.push({ field: 'azureTenantId', message: 'must be a tenant id or domain' });
        settings.azure_tenant_id = tenant ?? null;
        if (auth === 'SERVICE_PRINCIPAL') {
          settings.azure_client_id =
            need('azureClientId', text(body.azureClientId), 'for AZURE SERVICE_PRINCIPAL') ?? null;
          const secret = need('azureClientSecret', text(body.azureClientSecret), 'for AZURE SERVICE_PRINCIPAL');
          if (secret) secrets.azureClientSecret = secret;
        }
      }
      break;
    }
  }
  if (errors.length) throw invalid(errors);
  return { settings, secrets };
}

/** A storage as answered: set fields only, never a secret. */
export function storageView(row: StorageRow) {
  const view: Record<string, unknown> = { _id: row.id, name: row.name, provider: row.provider };
  const optional: [string, string | null][] = [
    ['region', row.region],
    ['s3AccessType', row.s3_access_type],
    ['s3RoleArn', row.s3_role_arn],
    ['s3ExternalId', row.s3_external_id],
    ['s3UserArn', row.s3_user_arn],
    ['host', row.host],
    ['azureAuthType', row.azure_auth_type],
    ['azureTenantId', row.azure_tenant_id],
    ['azureClientId', row.azure_client_id],
    ['publicKey', row.public_key],
  ];
  for (const [field, value] of optional) if (value !== null) view[field] = value;
  if (row.provider === 'AWS') view.useAccelerateEndpoint = row.use_accelerate_endpoint === 1;
  view.organization = row.organization_id;
  view.createdBy = row.created_by;
  view.createdAt = row.created_at;
  return view as {
    _id: string;
    name: string;
    provider: string;
    organization: string;
    createdBy: string;
    createdAt: string;
    [field: string]: unknown;
  };
}

/** What an adapter needs: the row's settings and its opened secrets. */
export function connectionOf(row: StorageRow, secrets: StorageSecrets): Connection {
  const keys = () => ({ accessKeyId: row.public_key ?? '', secretAccessKey: secrets.privateKey ?? '' });
  switch (row.provider) {
    case 'AWS':
      return {
        provider: 'AWS',
        region: row.region ?? DEFAULT_AWS_REGION,
        useAccelerateEndpoint: row.use_accelerate_endpoint === 1,
        ...(row.s3_access_type === 'IAM_DELEGATED'
          ? { role: { arn: row.s3_role_arn ?? '', externalId: row.s3_external_id ?? '' } }
          : { keys: keys() }),
      };
    case 'CUSTOM_S3':
      return {
        provider: 'CUSTOM_S3',
        endpoint: row.host ?? '',
        region: row.region ?? DEFAULT_CUSTOM_S3_REGION,
        keys: keys(),
      };
    case 'GCP':
      if (!secrets.credentials) throw new Error('GCP storage without credentials');
      return { provider: 'GCP', serviceAccount: secrets.credentials, ...(row.host ? { endpoint: row.host } : {}) };
    default: {
      const account = row.public_key ?? '';
      const endpoint = row.host ? { endpoint: row.host } : {};
      const tenantId = row.azure_tenant_id ?? '';
      if (row.azure_auth_type === 'SERVICE_PRINCIPAL') {
        const clientId = row.azure_client_id ?? '';
        const auth = {
          kind: 'SERVICE_PRINCIPAL' as const,
          tenantId,
          clientId,
          clientSecret: secrets.azureClientSecret ?? '',
        };
        return { provider: 'AZURE', account, ...endpoint, auth };
      }
      if (row.azure_auth_type === 'MULTI_TENANT') {
        return { provider: 'AZURE', account, ...endpoint, auth: { kind: 'MULTI_TENANT', tenantId } };
      }
      return {
        provider: 'AZURE',
        account,
        ...endpoint,
        auth: { kind: 'ACCOUNT_KEY', accountKey: secrets.privateKey ?? '' },
      };
    }
  }
}
