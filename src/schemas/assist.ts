import { Type, type Static } from 'typebox';

/** The editor's Assist: points (and a box) sent to a plugin that answers interactive segmentation. */

const Point = Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[x, y] in image pixels' });

export const AssistRequest = Type.Object({
  pluginId: Type.String({ minLength: 1, maxLength: 64, description: 'a plugin of the organization with an assistUrl' }),
  schemaId: Type.Optional(
    Type.String({ maxLength: 200, description: 'the segmentation or brush class the object is for' }),
  ),
  positive: Type.Optional(Type.Array(Point, { maxItems: 200, description: 'points inside the object' })),
  negative: Type.Optional(Type.Array(Point, { maxItems: 200, description: 'points outside the object' })),
  box: Type.Optional(
    Type.Array(Type.Number(), {
      minItems: 4,
      maxItems: 4,
      description: '[x1, y1, x2, y2] around the object, in image pixels',
    }),
  ),
});
export type AssistRequest = Static<typeof AssistRequest>;

const Ring = Type.Array(Type.Array(Type.Number()));
export const AssistAnswer = Type.Object({
  mask: Type.Optional(
    Type.String({
      description:
        'data:image/png;base64 link of a PNG of the image size: a pixel is in the object when it is opaque (alpha 128 or more) and not black',
    }),
  ),
  zones: Type.Optional(Type.Array(Type.Object({ region: Ring, holes: Type.Array(Ring) }))),
});
