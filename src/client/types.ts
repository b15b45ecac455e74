import type { paths } from './schema.js';

/**
 * Types derived from the generated `paths` (src/client/schema.d.ts): nothing here names an
 * endpoint's fields by hand. While an operation's document has no response schema, its data is
 * `unknown`; regenerating the file types it.
 */
export type Paths = paths;
export type Method = 'get' | 'post' | 'put' | 'delete';

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : unknown;
type SuccessBody<O> = O extends { responses: infer R }
  ? 200 extends keyof R
    ? JsonContent<R[200]>
    : 201 extends keyof R
      ? JsonContent<R[201]>
      : unknown
  : unknown;

/** The operation object of a path and method. */
export type Operation<P extends keyof Paths, M extends Method> = Paths[P] extends Record<M, infer O> ? O : never;

/** The `data` of the success envelope `{status: 'success', data}`. */
export type ApiData<P extends keyof Paths, M extends Method> =
  SuccessBody<Operation<P, M>> extends { data: infer D } ? D : unknown;

/** The query parameters of an operation. */
export type ApiQuery<P extends keyof Paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The JSON request body of an operation. */
export type ApiBody<P extends keyof Paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** One item of the list `key` inside an operation's data (`unknown` until the document types it). */
export type ListItem<P extends keyof Paths, M extends Method, K extends string> =
  ApiData<P, M> extends { [k in K]: (infer I)[] } ? I : unknown;

/** Query of a paginated list without its `page` (the iterator walks the pages). */
export type ListQuery<P extends keyof Paths> = Omit<ApiQuery<P, 'get'>, 'page'>;
