import { Type } from 'typebox';

/** POST /file-explorer [client]: browse a storage one folder level at a time, or import from it. */
export const FileExplorerRequest = Type.Object({
  storageId: Type.String({ minLength: 1, maxLength: 64 }),
  bucket: Type.String({ minLength: 1, maxLength: 255 }),
  folder: Type.Optional(Type.String({ maxLength: 1024, description: 'folder path; empty = the bucket root' })),
  files: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      maxItems: 200_000,
      description: 'with upload: the files to import, by name in the folder (or full key)',
    }),
  ),
  extensions: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 16 }), {
      maxItems: 100,
      description: 'only files with these extensions (jpg, .png; any case)',
    }),
  ),
  upload: Type.Optional(Type.Boolean({ description: 'import the files (or the whole folder) into projectId' })),
  projectId: Type.Optional(Type.String({ maxLength: 64 })),
  batches: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000, description: 'batch ids or names' }),
  ),
  scrollToken: Type.Optional(Type.String({ maxLength: 4096, description: 'the previous answer scrollToken' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'entries per page (default 1000)' })),
});
