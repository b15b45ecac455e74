import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrganizationPlan } from '../../src/services/identity/identity.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import {
  FIELD_VALUES,
  LEAKS,
  type Operation,
  operationsOf,
  PATH_VALUES,
  QUERY_VALUES,
  RAW_BODIES,
  sampler,
  UNKNOWN_ID,
} from '../helpers/fuzz-cases.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Walks every operation of the served OpenAPI document as an authenticated Manager with hostile
 * input of each kind (test/helpers/fuzz-cases.ts) and asserts: no 5xx, the envelope on every
 * answer that is not a success, no stack trace, SQL or file path in any body, and 405 with
 * Allow for every method a path does not serve. CI sends a bounded, seeded sample per operation;
 * ANNOTARY_FUZZ_FULL=1 sends every case (ANNOTARY_FUZZ_SEED picks another sample).
 */
const FULL = process.env.ANNOTARY_FUZZ_FULL === '1';
const SEED = Number(process.env.ANNOTARY_FUZZ_SEED ?? 13);
const PER_KIND = FULL ? Infinity : 3;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

describe.each(ENGINES)('fuzzing the OpenAPI operations on %s', (engine) => {
  let t: TestApp;
  let ops: Operation[];
  let spec: { paths: Record<string, Record<string, unknown>> };
  const known: Record<string, string> = {};
  let sent = 0;
  let apiKey = '';

  beforeAll(async () => {
    t = await makeTestApp(engine);
    apiKey = t.ownerKey;
    await setOrganizationPlan(t.store.db, t.orgId, 'enterprise', 10_000_000);
    const projectId = (await t.call('POST', '/v2/project', { body: { name: 'Fuzzed' } })).json().data.project._id;
    const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/f.jpg' }] },
    });
    Object.assign(known, {
      projectId,
      taskId: imported.json().data.assets[0].taskId,
      id: imported.json().data.assets[0].taskId,
      orgId: t.orgId,
      metric: 'TaskCount',
    });
    spec = (await t.call('GET', '/v2/openapi.json')).json();
    ops = operationsOf(spec as Parameters<typeof operationsOf>[0]);
  });
  afterAll(async () => {
    // How much the full walk sent, for whoever tunes the sample size.
    if (FULL) console.log(`fuzz on ${engine}: ${sent} requests`);
    await t.close();
  });

  const urlOf = (op: Operation, override?: [string, string]) =>
    op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      override && override[0] === name ? override[1] : encodeURIComponent(known[name] ?? UNKNOWN_ID),
    );

  async function send(what: string, method: string, url: string, body?: { type: string; payload: string }) {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { apikey: apiKey, ...(body ? { 'content-type': body.type } : {}) },
      ...(body ? { payload: body.payload } : {}),
    });
    sent += 1;
    // POST /session/api-key takes no body, so every hostile body is a valid request: it makes a
    // new key for the caller and retires the one sent. The walk goes on with the new key.
    if (method === 'POST' && url === '/v2/session/api-key' && res.statusCode === 201) {
      apiKey = (res.json() as { data: { apiKey: string } }).data.apiKey;
    }
    judge(`${what}: ${method} ${url.slice(0, 120)}`, res);
    // A hostile request may be a valid one (`deleted: true`): keep the target alive.
    await t.store.db
      .updateTable('projects')
      .set({ deleted: 0 })
      .where('id', '=', known.projectId ?? '')
      .execute();
    return res;
  }

  function judge(what: string, res: LightMyRequestResponse) {
    expect(res.statusCode, `${what} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
    for (const [leak, pattern] of LEAKS) expect(res.body, `${what}: ${leak} in the body`).not.toMatch(pattern);
    if (res.statusCode < 400) return;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(res.body) as Record<string, unknown>;
    } catch {
      throw new Error(`${what}: ${res.statusCode} is not JSON: ${res.body.slice(0, 200)}`);
    }
    expect(body.status, `${what}: ${res.body.slice(0, 300)}`).toBe('fail');
    expect(typeof body.message, what).toBe('string');
    expect(
      Object.keys(body).filter((k) => !['status', 'message', 'errors'].includes(k)),
      what,
    ).toEqual([]);
  }

  it('covers the operations of the document', () => {
    expect(ops.length).toBeGreaterThanOrEqual(50);
  });

  it('answers hostile path parameters without a 5xx, in the envelope', async () => {
    const pick = sampler(SEED);
    for (const op of ops) {
      for (const name of op.pathParams) {
        for (const value of pick(PATH_VALUES, PER_KIND))
          await send(`path ${name}`, op.method, urlOf(op, [name, value]));
      }
    }
  });

  it('answers hostile query values without a 5xx, in the envelope', async () => {
    const pick = sampler(SEED + 1);
    for (const op of ops) {
      for (const name of op.queryParams) {
        for (const value of pick(QUERY_VALUES, PER_KIND)) {
          const encoded = value === '%FF' ? value : encodeURIComponent(value);
          await send(`query ${name}`, op.method, `${urlOf(op)}?${encodeURIComponent(name)}=${encoded}`);
        }
      }
      // A parameter given twice arrives as a list.
      const [first] = op.queryParams;
      if (first) await send(`query ${first} twice`, op.method, `${urlOf(op)}?${first}=1&${first}=2`);
    }
  });

  it('answers hostile body fields without a 5xx, in the envelope', async () => {
    const pick = sampler(SEED + 2);
    for (const op of ops) {
      for (const prop of op.bodyProps) {
        for (const value of pick(FIELD_VALUES, PER_KIND)) {
          const payload = JSON.stringify({ [prop]: value });
          await send(`body ${prop}`, op.method, urlOf(op), { type: 'application/json', payload });
        }
      }
    }
  });

  it('answers malformed, deep and mistyped whole bodies without a 5xx, in the envelope', async () => {
    const pick = sampler(SEED + 3);
    for (const op of ops) {
      if (op.method === 'GET' && op.bodyProps.length === 0) continue;
      for (const raw of pick(RAW_BODIES, FULL ? Infinity : 4)) {
        await send(raw.kind, op.method, urlOf(op), { type: raw.contentType, payload: raw.payload });
      }
    }
  });

  it('answers the malformed multipart kinds on every operation that takes a body', async () => {
    const multipart = RAW_BODIES.filter((b) => b.contentType.startsWith('multipart/'));
    for (const op of ops.filter((o) => o.method === 'POST')) {
      for (const raw of multipart) {
        await send(raw.kind, op.method, urlOf(op), { type: raw.contentType, payload: raw.payload });
      }
    }
  });

  it('answers unknown ids and a wrong method: 404s in the envelope, 405 with Allow', async () => {
    for (const op of ops) {
      if (op.pathParams.length) {
        const unknown = op.path.replace(/\{[^}]+\}/g, UNKNOWN_ID);
        const res = await send('unknown ids', op.method, unknown, { type: 'application/json', payload: '{}' });
        expect(res.statusCode, `${op.method} ${unknown}`).toBeGreaterThanOrEqual(400);
      }
    }
    for (const [path, methods] of Object.entries(spec.paths)) {
      const served = Object.keys(methods).map((m) => m.toUpperCase());
      const op = ops.find((o) => o.path === path) as Operation;
      for (const method of METHODS.filter((m) => !served.includes(m))) {
        const res = await send('wrong method', method, urlOf(op));
        expect(res.statusCode, `${method} ${path}`).toBe(405);
        const allow = String(res.headers.allow).split(', ');
        for (const m of served) expect(allow, `${method} ${path}`).toContain(m);
      }
    }
  });
});
