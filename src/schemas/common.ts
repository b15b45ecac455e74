import { Type, type Static, type TSchema, type TSchemaOptions, type TOptional, type TUnsafe } from 'typebox';
import { ID_PATTERN } from '../ids.js';

/**
 * A string enum as one `{type: 'string', enum}` schema rather than a union of literals, so a
 * wrong value yields one error listing the allowed values instead of one error per literal.
 */
export function StringEnum<const V extends string>(values: readonly V[], options: TSchemaOptions = {}): TUnsafe<V> {
  return Type.Unsafe<V>({ ...options, type: 'string', enum: [...values] });
}

/** A JSON Schema object with its `type` widened to also accept null (enums gain a null member). */
function acceptingNull(schema: TSchema): TSchema {
  const raw = schema as TSchema & { type?: unknown; enum?: unknown };
  // Spreading drops TypeBox's hidden kind markers, which is what we want: the copy is plain
  // JSON Schema. `type: [..., 'null']` keeps errors flat where `anyOf` would double them.
  if (typeof raw.type === 'string') {
    const copy: Record<string, unknown> = { ...raw, type: [raw.type, 'null'] };
    if (Array.isArray(raw.enum)) copy['enum'] = [...(raw.enum as unknown[]), null];
    return copy as TSchema;
  }
  if (Array.isArray(raw.type)) {
    return { ...raw, type: [...(raw.type as unknown[]), 'null'] } as TSchema;
  }
  return { anyOf: [schema, { type: 'null' }] } as TSchema;
}

/** `T | null` where null is a value of its own (e.g. `regex`, `brushDataUrl`), not absence. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>(acceptingNull(schema));
}

/**
 * An optional field. The wire may carry null, which counts as absent (DECISIONS 1: the Python
 * client sends `exportName: null`): the HTTP layer drops null properties before validation and
 * the ontology/workflow validators drop them again for non-HTTP callers, so the static type is
 * `T` without null. Keeping `T` also keeps TypeBox's cyclic inference for `Type.Ref` arrays.
 */
export function OptionalField<T extends TSchema>(schema: T): TOptional<T> {
  return Type.Optional(acceptingNull(schema) as T) as TOptional<T>;
}

/** 24 lowercase hex characters (ObjectId layout, DECISIONS 1). */
export const Id = Type.String({ pattern: ID_PATTERN, description: '24 lowercase hex characters' });

export const HexColor = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'hex colour #RRGGBB' });

export const QUERY_BOOLEAN_PATTERN = '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$';

/** `true`/`false` in any case: the Python client sends `True`. */
export const QueryBoolean = Type.String({ pattern: QUERY_BOOLEAN_PATTERN, description: 'true or false, any case' });

/** Reads a QueryBoolean value; absent (or anything unexpected) gives `fallback`. */
export function parseQueryBoolean(s: string | undefined | null, fallback = false): boolean {
  if (typeof s !== 'string') return fallback;
  const lower = s.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return fallback;
}

/**
 * The largest `page`: with the largest `limit` it reaches a billion rows, and the offset it
 * makes stays an exact integer every store takes (an unbounded page overflowed SQLite's).
 */
export const MAX_PAGE = 1_000_000;

/**
 * `page` and `limit` query parameters. Integers: the querystring validator converts the strings
 * before checking. Defaults are documentation; routes apply them when a value is absent.
 */
export function PaginationQuery(maxLimit: number) {
  return Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, default: 10 })),
  });
}

export type PaginationQuery = Static<ReturnType<typeof PaginationQuery>>;

/** The `sort` query value: `field` or `-field` (descending) for the given fields only. */
export function SortQuery<const F extends string>(
  fields: readonly F[],
  defaultSort?: F | `-${F}`,
): TUnsafe<F | `-${F}`> {
  const values: (F | `-${F}`)[] = [...fields, ...fields.map((f): `-${F}` => `-${f}`)];
  return StringEnum(values, defaultSort === undefined ? {} : { default: defaultSort });
}

/** The field-level error of the contract's ErrorResponse. */
export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

/** An object whose content is free-form and kept as sent (pluginConfig, errorSchema...). */
export const FreeObject = Type.Record(Type.String(), Type.Unknown());

/** Options for stored-document objects: unknown properties are kept as sent (DECISIONS 1). */
export const KEEP_UNKNOWN = { additionalProperties: true } as const;

/** A video's brush layers, one item per frame with a layer (docs/api.md, "Brush layers of videos"). */
export function BrushFrames(description: string) {
  return Type.Array(
    Type.Object({
      page: Type.Integer({ minimum: 0, description: 'the frame, counted from 0' }),
      url: Type.String({ maxLength: 4096, description: "link to the frame's layer, a PNG of the video's size" }),
    }),
    { maxItems: 100_000, description },
  );
}
