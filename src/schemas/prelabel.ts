import { Type } from 'typebox';

/** POST /import/labels (DECISIONS section 6): answers written onto tasks still in Start. */

export const MAX_PRELABEL_ITEMS = 200_000;

export const ImportLabelsRequest = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  jsonContent: Type.Union(
    [
      Type.Array(Type.Unknown(), { maxItems: MAX_PRELABEL_ITEMS }),
      Type.String({ minLength: 1, description: 'the same array as a JSON string' }),
    ],
    {
      description:
        'array of {externalId | assetId, objects?, classifications?, relations?, brushDataUrl?, medicalBrushDataUrl?}, or a JSON string of one',
    },
  ),
});

/** What a label file's import took and what it left (POST /project/{id}/import/labels). */
export const LabelImportReport = Type.Object(
  {
    images: Type.Integer({ description: 'images (or files) of the label file that were read' }),
    tasks: Type.Integer({ description: 'tasks that received pre-labels' }),
    objects: Type.Integer({ description: 'objects taken as pre-labels' }),
    clipped: Type.Integer({ description: 'objects reaching past their image, clipped to it' }),
    skippedImages: Type.Integer({ description: 'images of the file left out' }),
    skippedImageList: Type.Array(Type.Object({ source: Type.String(), reason: Type.String() }), {
      description: 'the first 100 images left out, with why',
    }),
    unmatchedCategories: Type.Array(Type.Object({ name: Type.String(), objects: Type.Integer() }), {
      description: 'categories of the file that match no tool of the ontology, with their object counts',
    }),
    skipped: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() }), {
      description: 'objects and answers left out, counted by reason',
    }),
  },
  { additionalProperties: false },
);
