import { Type, type TSchema } from 'typebox';

/** What the document says about one operation, beyond the schemas its route validates with. */
export interface Operation {
  /** Stable camelCase name: the contract's where it has one. Clients name their methods after it. */
  id: string;
  summary: string;
  /** Side effects, which stage types, what moves: where the behaviour is not obvious. */
  description?: string;
  /** The success status; 201 for creations. */
  status: 200 | 201;
  /** The `data` of the success envelope; or, with `raw`, the whole answer body. */
  data: TSchema;
  /** The answer is not the JSON envelope (a zip). */
  raw?: { contentType: string };
  /** Error statuses beyond those every authenticated operation can give. */
  errors?: (409 | 413 | 502)[];
}

/** `{status: 'success', data}` with the data documented. */
export function successOf(data: TSchema) {
  return Type.Object({ status: Type.Literal('success'), data });
}

export const Count = (description: string) => Type.Integer({ minimum: 0, description });
export const ListOf = (key: string, item: TSchema) =>
  Type.Object({ [key]: Type.Array(item), total: Count('items matching, over all pages') });
