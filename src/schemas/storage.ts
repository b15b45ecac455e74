import { Type, type Static } from 'typebox';
import { FreeObject, Id, OptionalField, PaginationQuery, QueryBoolean, StringEnum } from './common.js';

export const STORAGE_PROVIDERS = ['AWS', 'CUSTOM_S3', 'GCP', 'AZURE'] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];
export const S3_ACCESS_TYPES = ['IAM_USER', 'IAM_DELEGATED'] as const;
export type S3AccessType = (typeof S3_ACCESS_TYPES)[number];
export const AZURE_AUTH_TYPES = ['ACCOUNT_KEY', 'SERVICE_PRINCIPAL', 'MULTI_TENANT'] as const;
export type AzureAuthType = (typeof AZURE_AUTH_TYPES)[number];

/**
 * Create-storage body. Which fields each provider needs (`host` for CUSTOM_S3, keys per auth
 * type) is the storage service's check, so its message can name the provider.
 */
export const StorageCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256, description: 'display name' }),
  provider: StringEnum(STORAGE_PROVIDERS),
  region: OptionalField(Type.String({ maxLength: 64, description: 'AWS only', default: 'eu-central-1' })),
  publicKey: OptionalField(
    Type.String({
      maxLength: 1024,
      description: 'access key id (AWS IAM_USER, CUSTOM_S3); storage account name (AZURE)',
    }),
  ),
  privateKey: OptionalField(
    Type.String({
      maxLength: 4096,
      description: 'secret access key (AWS IAM_USER, CUSTOM_S3); account key (AZURE ACCOUNT_KEY); write-only',
      writeOnly: true,
    }),
  ),
  s3AccessType: OptionalField(StringEnum(S3_ACCESS_TYPES, { default: 'IAM_USER', description: 'AWS only' })),
  s3RoleArn: OptionalField(Type.String({ maxLength: 2048, description: 'AWS IAM_DELEGATED: role to assume' })),
  s3ExternalId: OptionalField(
    Type.String({
      maxLength: 1224,
      description: 'AWS IAM_DELEGATED: external id of the trust policy; generated when absent',
    }),
  ),
  host: OptionalField(
    Type.String({ maxLength: 2048, description: 'endpoint URL; required for CUSTOM_S3, accepted for GCP and AZURE' }),
  ),
  credentials: OptionalField(
    Type.Union([FreeObject, Type.String({ maxLength: 65536 })], {
      description: 'GCP only: service-account key (object, or its JSON text); write-only',
      writeOnly: true,
    }),
  ),
  azureAuthType: OptionalField(StringEnum(AZURE_AUTH_TYPES, { default: 'ACCOUNT_KEY', description: 'AZURE only' })),
  azureTenantId: OptionalField(Type.String({ maxLength: 256, description: 'AZURE SERVICE_PRINCIPAL, MULTI_TENANT' })),
  azureClientId: OptionalField(Type.String({ maxLength: 256, description: 'AZURE SERVICE_PRINCIPAL' })),
  azureClientSecret: OptionalField(
    Type.String({ maxLength: 1024, description: 'AZURE SERVICE_PRINCIPAL; write-only', writeOnly: true }),
  ),
  useAccelerateEndpoint: OptionalField(Type.Boolean({ default: false, description: 'AWS only' })),
});
export type StorageCreateRequest = Static<typeof StorageCreateRequest>;

/**
 * A storage as answered. Fields a provider does not use are absent. The secrets privateKey,
 * credentials and azureClientSecret never appear.
 */
export const Storage = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  region: Type.Optional(Type.String()),
  s3AccessType: Type.Optional(Type.String()),
  s3RoleArn: Type.Optional(Type.String()),
  s3ExternalId: Type.Optional(Type.String()),
  s3UserArn: Type.Optional(Type.String()),
  host: Type.Optional(Type.String()),
  azureAuthType: Type.Optional(Type.String()),
  azureTenantId: Type.Optional(Type.String()),
  azureClientId: Type.Optional(Type.String()),
  publicKey: Type.Optional(Type.String()),
  useAccelerateEndpoint: Type.Optional(Type.Boolean()),
  organization: Type.String(),
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  /** Only on the answer of a DELETE. */
  deleted: Type.Optional(Type.Boolean()),
});
export type Storage = Static<typeof Storage>;

export const StorageIdParams = Type.Object({ storageId: Type.String({ maxLength: 64 }) });

export const ListStoragesQuery = Type.Intersect([PaginationQuery(100), Type.Object({ _id: Type.Optional(Id) })]);
export type ListStoragesQuery = Static<typeof ListStoragesQuery>;

/** Booleans arrive as strings in any case; read them with parseQueryBoolean(value, true). */
export const ListFilesQuery = Type.Object({
  bucketName: Type.String({ minLength: 1, maxLength: 1024, description: 'bucket or container name' }),
  path: Type.Optional(Type.String({ maxLength: 1024, default: '', description: 'folder to list, recursively' })),
  getSignedUrls: Type.Optional(QueryBoolean),
  retryOnSlowDown: Type.Optional(QueryBoolean),
});
export type ListFilesQuery = Static<typeof ListFilesQuery>;
