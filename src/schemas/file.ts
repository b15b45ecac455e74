import { Type } from 'typebox';
import { StringEnum } from './common.js';

/** Folders of getUploadUrl's `type` [client]; `assets` when absent. */
export const FILE_TYPE_VALUES = [
  'assets',
  'segmentationModels',
  'brushes',
  'medicalBrushes',
  'exports',
  'instructions',
] as const;
export type FileType = (typeof FILE_TYPE_VALUES)[number];

const StorageId = Type.String({ minLength: 1, maxLength: 64, description: 'a storage of the organization' });
const Bucket = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'bucket or container; required with storageId',
});

export const UploadUrlQuery = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 1024, description: 'file name with its extension' }),
  project: Type.String({ minLength: 1, maxLength: 64, description: 'project id; import permission' }),
  type: Type.Optional(StringEnum(FILE_TYPE_VALUES, { description: 'folder of the file, default assets' })),
  storageId: Type.Optional(StorageId),
  bucket: Type.Optional(Bucket),
});

export const SignedUrlQuery = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'a URL or key of the file store, a URL of a storage (with storageId), or any http(s) URL',
  }),
  project: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'project id; read permission' })),
  type: Type.Optional(StringEnum(FILE_TYPE_VALUES)),
  storageId: Type.Optional(StorageId),
  bucket: Type.Optional(Bucket),
});

/** The Python client sends these in the query of POST /project/{id}/instructions [client]. */
export const InstructionsQuery = Type.Object({
  storageId: Type.Optional(StorageId),
  bucket: Type.Optional(Bucket),
});

/** `/files/:expiry/:sig/*`; the key is the wildcard, which a schema cannot name. */
export const FileLinkParams = Type.Object({
  expiry: Type.String({ maxLength: 20 }),
  sig: Type.String({ maxLength: 100 }),
});
