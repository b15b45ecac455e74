import { Type } from 'typebox';
import { FreeObject, PaginationQuery } from './common.js';

export const ProjectIdParams = Type.Object({ projectId: Type.String({ maxLength: 64 }) });

export const AssetInput = Type.Object({
  data: Type.String({
    minLength: 1,
    maxLength: 1_048_576,
    description:
      'http(s) URL of the file (at most 4096 characters); with uploadLocal the content itself; for a pct asset in a storage folder, `<bucket>/<folder>` with `storage` (docs/api.md, Point clouds)',
  }),
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  dataset: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      minItems: 1,
      maxItems: 5000,
      description:
        'an asset made of several images: their http(s) URLs in page order (`data` is the first page, shown in lists and named by exports); `metadata.pageTotal` is set to its length',
    }),
  ),
  batches: Type.Optional(
    Type.Array(Type.String({ maxLength: 200 }), { maxItems: 1000, description: 'batch ids or names' }),
  ),
  contextData: Type.Optional(Type.Unknown()),
  metadata: Type.Optional(FreeObject),
  storage: Type.Optional(Type.String({ maxLength: 64, description: 'storage id the file lives in' })),
  classifications: Type.Optional(
    Type.Array(FreeObject, {
      maxItems: 1000,
      description: "pre-labels: classification answers of the project's ontology, set on the new task",
    }),
  ),
  editorType: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        '`pct` for a point-cloud asset: its lidar frame URLs in `dataset` and its cameras in `pct` (docs/api.md, Point clouds)',
    }),
  ),
  pct: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({
      ...FreeObject,
      description:
        "a point-cloud asset's cameras: `{cameras: [{name, images: [url per frame], intrinsics: {fx, fy, cx, cy, width, height}, extrinsics: [16 numbers, row-major, lidar to camera]}]}`",
    }),
  ),
});

export const ImportAssetsRequest = Type.Object({
  assets: Type.Array(AssetInput, { minItems: 1, maxItems: 200_000 }),
  priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000 })),
  uploadLocal: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$' })], {
      description:
        'the assets were uploaded by the client: a `data` that is not an http(s) URL is the asset\'s content (built by the client, e.g. from an asset builder template), stored in the server\'s file store and served by a signed URL. `true`/`false`, or the strings `"true"`/`"false"` the Python client sends',
    }),
  ),
});

export const ImportAssetsQuery = Type.Object({
  batches: Type.Optional(
    Type.String({ maxLength: 100_000, description: 'JSON array of batch ids applied to every asset' }),
  ),
});

export const ListAssetsQuery = Type.Intersect([
  PaginationQuery(1000),
  Type.Object({
    filters: Type.Optional(
      Type.String({ maxLength: 1_000_000, description: 'JSON: _id, externalId, isPreLabeled, batches' }),
    ),
  }),
]);

export const DeleteAssetsRequest = Type.Object({
  assets: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 200_000 }),
});

export const BatchesRequest = Type.Object({
  batches: Type.Union([
    Type.String({ minLength: 1, maxLength: 200 }),
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 200 }),
        _id: Type.Optional(Type.String({ maxLength: 64 })),
      }),
      {
        maxItems: 10_000,
      },
    ),
  ]),
});

const StringOrList = (max: number) =>
  Type.Union([
    Type.String({ minLength: 1, maxLength: 200 }),
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: max }),
  ]);

export const AssignBatchesRequest = Type.Object({
  batches: StringOrList(1000),
  assets: StringOrList(200_000),
  project: Type.Optional(Type.String({ maxLength: 64 })),
  projectId: Type.Optional(Type.String({ maxLength: 64 })),
});

export const AssetIdParams = Type.Object({ assetId: Type.String({ maxLength: 64 }) });

/** PUT /asset/{id}/size: the size the editor measured, in pixels. */
export const AssetSizeRequest = Type.Object({
  width: Type.Integer({ minimum: 1, maximum: 100_000, description: 'pixels' }),
  height: Type.Integer({ minimum: 1, maximum: 100_000, description: 'pixels' }),
});
