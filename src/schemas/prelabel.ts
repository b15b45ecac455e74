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
      description: 'array of {externalId | assetId, objects?, classifications?, relations?}, or a JSON string of one',
    },
  ),
});
