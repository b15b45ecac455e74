import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * No malformed request to any route answers 5xx. The routes come from the OpenAPI document, so
 * every route added later is covered without touching this file.
 */
const WRONG_VALUES: unknown[] = [
  null,
  1e30,
  Number.MAX_SAFE_INTEGER + 2,
  -1,
  1.5,
  'text',
  '',
  '😀'.repeat(300),
  '\u0000\uffff',
  true,
  [],
  [null],
  {},
  { $gt: 1 },
  [[[[[['deep']]]]]],
];

const WHOLE_BODIES: (string | undefined)[] = [
  undefined,
  '',
  'null',
  '[]',
  '"string"',
  '123',
  'true',
  '{}',
  '{"a":',
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '['.repeat(5000) + ']'.repeat(5000),
  JSON.stringify({ a: 'x'.repeat(100_000) }),
];

const QUERY_VALUES = ['-1', '0', '1e309', 'abc', '%00', '[]', '{"$gt":1}', 'x'.repeat(3000), 'True', '%7B%22a'];

interface Operation {
  method: string;
  path: string;
  bodyProps: string[];
  queryParams: string[];
}

function operations(spec: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = (op.requestBody as { content?: Record<string, { schema?: { properties?: object } }> } | undefined)
        ?.content?.['application/json']?.schema?.properties;
      const params = (op.parameters as { in: string; name: string }[] | undefined) ?? [];
      out.push({
        method: method.toUpperCase(),
        path,
        bodyProps: body ? Object.keys(body) : [],
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
  return out;
}

describe.each(ENGINES)('malformed requests on %s', (engine) => {
  let t: TestApp;
  let ops: Operation[];
  let projectId: string;
  beforeAll(async () => {
    // A high enterprise limit: this battery sends thousands of requests.
    t = await makeTestApp(engine);
    const { setOrganizationPlan } = await import('../../src/services/identity/identity.service.js');
    await setOrganizationPlan(t.store.db, t.orgId, 'enterprise', 1_000_000);
    projectId = (await t.call('POST', '/v2/project', { body: { name: 'Target' } })).json().data.project._id;
    ops = operations((await t.call('GET', '/v2/openapi.json')).json());
  });
  afterAll(() => t.close());

  function fill(path: string, value: string): string {
    return path.replace(/\{[^}]+\}/g, value);
  }

  async function expectNo5xx(method: string, url: string, body?: unknown) {
    const res = await t.call(
      method,
      url,
      body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) },
    );
    expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)?.slice(0, 80)}`).toBeLessThan(500);
    expect(res.json().status).toBeDefined();
    // Some wrong values are valid requests (`deleted: true`): keep the target alive for the next one.
    await t.store.db.updateTable('projects').set({ deleted: 0 }).where('id', '=', projectId).execute();
  }

  it('covers the routes of the contract', () => {
    expect(ops.length).toBeGreaterThanOrEqual(5);
  });

  it('never answers 5xx to wrong whole bodies or path values', async () => {
    for (const op of ops) {
      for (const idValue of [projectId, 'nope', '%00', 'ffffffffffffffffffffffff', 'x'.repeat(150)]) {
        const url = `/v2${fill(op.path.replace(/^\/v2/, ''), idValue)}`;
        for (const body of op.method === 'GET' || op.method === 'DELETE' ? [undefined, '{}'] : WHOLE_BODIES) {
          await expectNo5xx(op.method, url, body);
        }
      }
    }
  });

  it('never answers 5xx to a wrong value in any body field or query parameter', async () => {
    for (const op of ops) {
      const url = `/v2${fill(op.path.replace(/^\/v2/, ''), projectId)}`;
      for (const prop of op.bodyProps) {
        for (const value of WRONG_VALUES) await expectNo5xx(op.method, url, { [prop]: value });
      }
      for (const param of op.queryParams) {
        for (const value of QUERY_VALUES) await expectNo5xx(op.method, `${url}?${param}=${encodeURIComponent(value)}`);
      }
    }
  });

  it('was not polluted', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
