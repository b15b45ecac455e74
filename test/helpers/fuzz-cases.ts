/*
 * Hostile input for the fuzz walk of the OpenAPI document (test/http/fuzz.test.ts): the
 * operations as the served document lists them, and the kinds of bad input a careless or hostile
 * client sends. Every case is data; the walk decides how many of each to send.
 */

export const UNKNOWN_ID = 'ffffffffffffffffffffffff';

export interface Operation {
  method: string;
  /** OpenAPI path template, `/v2/project/{projectId}` */
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[];
}

interface SpecOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

export function operationsOf(spec: { paths: Record<string, Record<string, SpecOperation>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const props = op.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: Object.keys(props),
      });
    }
  }
  return out;
}

/** Values of the wrong type or size for any body field. */
export const FIELD_VALUES: unknown[] = [
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER * 1024,
  -1,
  0.5,
  '',
  'x'.repeat(70_000),
  'nul\u0000inside',
  '\uffff\ud800',
  true,
  [],
  [null, 1, 'a'],
  {},
  { $gt: 1, constructor: { prototype: { polluted: true } } },
  UNKNOWN_ID,
  'not-an-id',
  Array.from({ length: 2000 }, (_, i) => i),
  nested(80),
];

/** Raw query values (encoded by the walk). */
export const QUERY_VALUES = [
  '99999999999999999999',
  '1e309',
  '-1',
  '0',
  '1.5',
  'abc',
  '\u0000',
  '%FF',
  '[]',
  '{"$gt":1}',
  '{"a":',
  'x'.repeat(5000),
  UNKNOWN_ID,
];

/** Path parameter values, raw (not encoded again): undecodable, overlong, NUL, unknown, wrong. */
export const PATH_VALUES = ['%FF', '%00', 'a'.repeat(300), 'x'.repeat(64), UNKNOWN_ID, 'nope', '..%2F..%2Fetc'];

export interface RawBody {
  kind: string;
  contentType: string;
  payload: string;
}

const cut = '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc';

/** Whole bodies: malformed JSON, wrong JSON types, deep nesting, wrong content types, broken multipart. */
export const RAW_BODIES: RawBody[] = [
  { kind: 'malformed JSON', contentType: 'application/json', payload: '{"a":' },
  { kind: 'JSON array', contentType: 'application/json', payload: '[1,2]' },
  { kind: 'JSON string', contentType: 'application/json', payload: '"s"' },
  { kind: 'JSON null', contentType: 'application/json', payload: 'null' },
  { kind: 'JSON number', contentType: 'application/json', payload: '1e999' },
  { kind: 'deep nesting', contentType: 'application/json', payload: '['.repeat(10_000) + ']'.repeat(10_000) },
  { kind: 'deep object', contentType: 'application/json', payload: JSON.stringify(nested(200)) },
  { kind: 'prototype', contentType: 'application/json', payload: '{"__proto__":{"polluted":true}}' },
  { kind: 'NUL key', contentType: 'application/json', payload: '{"a\\u0000b":1}' },
  { kind: 'text', contentType: 'text/plain', payload: 'hello' },
  { kind: 'xml', contentType: 'application/xml', payload: '<a/>' },
  { kind: 'utf-16 JSON', contentType: 'application/json; charset=utf-16', payload: '{}' },
  { kind: 'bad content type', contentType: '/;;;', payload: '{}' },
  { kind: 'form', contentType: 'application/x-www-form-urlencoded', payload: 'a=%%%&b' },
  { kind: 'multipart without boundary', contentType: 'multipart/form-data', payload: 'xxx' },
  { kind: 'multipart wrong boundary', contentType: 'multipart/form-data; boundary=yy', payload: '--zz\r\nbad' },
  { kind: 'multipart cut short', contentType: 'multipart/form-data; boundary=zz', payload: cut },
];

function nested(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i += 1) v = { a: v };
  return v;
}

/** Deterministic sampling: the same seed picks the same cases. */
export function sampler(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(items: readonly T[], n: number): T[] => {
    if (n >= items.length) return [...items];
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n) out.push(pool.splice(Math.floor(next() * pool.length), 1)[0] as T);
    return out;
  };
}

/** What no answer may carry: a stack trace, SQL or driver text, a file path of the server. */
export const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat [\w.<>]+ \(|\n\s+at |node:internal/],
  [
    'SQL',
    /\b(select|insert|update|delete)\b[^"]{0,80}\b(from|into|set|where)\b|SQLITE_|syntax error at or near|relation "|violates .* constraint/i,
  ],
  ['file path', /(\/(home|work|tmp|usr|var|opt|src|app)\/[\w.-]+\/)|node_modules|\.ts:\d+|\.js:\d+/],
];
