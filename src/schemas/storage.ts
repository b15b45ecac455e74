import { Type, type Static } from 'typebox';
import { FreeObject, OptionalField, PaginationQuery, QueryBoolean, StringEnum } from './common.js';

export const STORAGE_PROVIDERS = ['AWS', 'CUSTOM_S3', 'GCP', 'AZURE'] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];
export const S3_ACCESS_TYPES = ['IAM_USER', 'IAM_DELEGATED'] as const;
export const AZURE_AUTH_TYPES = ['ACCOUNT_KEY', 'SERVICE_PRINCIPAL', 'MULTI_TENANT'] as const;

/**
 * Create-storage body. Which fields each provider needs (`host` for CUSTOM_S3, keys per auth
 * type) is the storage service's check, so its message can name the provider.
 */
export const StorageCreateRequest = Type.Object({
  name: Type.String({ minLength: 1 }),
  provider: StringEnum(STORAGE_PROVIDERS),
  region: OptionalField(Type.String({ description: 'AWS only', default: 'eu-central-1' })),
  publicKey: OptionalField(Type.String()),
  privateKey: OptionalField(Type.String({ description: 'write-only' })),
  s3AccessType: OptionalField(StringEnum(S3_ACCESS_TYPES, { default: 'IAM_USER' })),
  s3RoleArn: OptionalField(Type.String()),
  s3ExternalId: OptionalField(Type.String()),
  host: OptionalField(Type.String({ description: 'endpoint URL; required for CUSTOM_S3' })),
  credentials: OptionalField(FreeObject),
  azureAuthType: OptionalField(StringEnum(AZURE_AUTH_TYPES, { default: 'ACCOUNT_KEY' })),
  azureTenantId: OptionalField(Type.String()),
  azureClientId: OptionalField(Type.String()),
  azureClientSecret: OptionalField(Type.String({ description: 'write-only' })),
  useAccelerateEndpoint: OptionalField(Type.Boolean({ default: false })),
});
export type StorageCreateRequest = Static<typeof StorageCreateRequest>;

/** A storage as answered: the secrets privateKey, credentials, azureClientSecret never appear. */
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
  createdBy: Type.Optional(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});
export type Storage = Static<typeof Storage>;

export const ListStoragesQuery = PaginationQuery(100);

/** Booleans arrive as strings in any case; read them with parseQueryBoolean(value, true). */
export const ListFilesQuery = Type.Object({
  bucketName: Type.String({ minLength: 1 }),
  path: Type.Optional(Type.String({ default: '' })),
  getSignedUrls: Type.Optional(QueryBoolean),
  retryOnSlowDown: Type.Optional(QueryBoolean),
});
export type ListFilesQuery = Static<typeof ListFilesQuery>;
