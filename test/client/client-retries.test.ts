import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Annotary, AnnotaryError } from '../../src/client/index.js';

/** A scripted server on 127.0.0.1: each request takes the next answer of the script. */
function scriptedServer() {
  let script: { status: number; headers?: Record<string, string> }[] = [];
  const seen: { method: string; url: string; body: string; apikey: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        apikey: req.headers.apikey as string | undefined,
      });
      const next = script.shift() ?? { status: 200 };
      const ok = next.status < 400;
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(
        JSON.stringify(
          ok
            ? { status: 'success', data: { projects: [], total: 0, project: { _id: 'p1' } } }
            : { status: next.status >= 500 ? 'error' : 'fail', message: `scripted ${next.status}` },
        ),
      );
    });
  });
  return {
    server,
    seen,
    answer(...answers: typeof script) {
      script = answers;
    },
    reset() {
      script = [];
      seen.length = 0;
    },
  };
}

describe('client retries against a scripted server on 127.0.0.1', () => {
  const s = scriptedServer();
  let client: Annotary;

  beforeAll(async () => {
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    const { port } = s.server.address() as AddressInfo;
    const retry = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 };
    client = new Annotary({ apiKey: 'ak_test', baseUrl: `http://127.0.0.1:${port}/v2`, retry, env: {} });
  });
  afterEach(() => s.reset());
  afterAll(() => new Promise<void>((resolve) => s.server.close(() => resolve())));

  it('answers 429 then 200: the GET is sent again after Retry-After and succeeds', async () => {
    s.answer({ status: 429, headers: { 'retry-after': '0' } }, { status: 200 });
    await expect(client.projects.list()).resolves.toMatchObject({ total: 0 });
    expect(s.seen.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(s.seen[0]?.url).toBe('/v2/listProjects');
    expect(s.seen[0]?.apikey).toBe('ak_test');
  });

  it('a 429 proves a POST was not applied: it is sent again, with the same body', async () => {
    const reset = String(Math.floor(Date.now() / 1000));
    s.answer({ status: 429, headers: { 'x-ratelimit-reset': reset } }, { status: 201 });
    await client.projects.create({ name: 'Again' });
    expect(s.seen.map((r) => r.method)).toEqual(['POST', 'POST']);
    expect(s.seen[1]?.body).toBe(s.seen[0]?.body);
    expect(JSON.parse(s.seen[1]?.body ?? '{}')).toEqual({ name: 'Again' });
  });

  it('a 500 on a POST is not retried (the project may exist): the caller gets the error', async () => {
    s.answer({ status: 500 }, { status: 201 });
    const err = (await client.projects.create({ name: 'Once' }).catch((e: unknown) => e)) as AnnotaryError;
    expect(err).toBeInstanceOf(AnnotaryError);
    expect(err.status).toBe(500);
    expect(err.message).toBe('scripted 500');
    expect(s.seen).toHaveLength(1);
  });

  it('a 503 with Retry-After (refused before handling) is retried on a POST; one without is not', async () => {
    s.answer({ status: 503, headers: { 'retry-after': '0' } }, { status: 201 });
    await client.projects.create({ name: 'Overloaded' });
    expect(s.seen).toHaveLength(2);

    s.reset();
    s.answer({ status: 503 }, { status: 201 });
    await expect(client.projects.create({ name: 'Unknown' })).rejects.toMatchObject({ status: 503 });
    expect(s.seen).toHaveLength(1);
  });

  it('a GET on 500s is retried up to the attempt bound, then the last answer is the error', async () => {
    s.answer({ status: 500 }, { status: 502 }, { status: 504 }, { status: 500 }, { status: 200 });
    await expect(client.projects.list()).rejects.toMatchObject({ status: 500 });
    expect(s.seen).toHaveLength(4);
  });

  it('stops once the total time bound would pass, even with attempts left', async () => {
    const { port } = s.server.address() as AddressInfo;
    const patient = new Annotary({
      apiKey: 'ak_test',
      baseUrl: `http://127.0.0.1:${port}/v2`,
      retry: { maxAttempts: 10, maxElapsedMs: 1000 },
      env: {},
    });
    // The server asks for an hour: waiting would break the bound, so the 429 comes back now.
    s.answer({ status: 429, headers: { 'retry-after': '3600' } }, { status: 200 });
    await expect(patient.projects.list()).rejects.toMatchObject({ status: 429, message: 'scripted 429' });
    expect(s.seen).toHaveLength(1);
  });

  it('a refused connection is retried even for a POST (nothing was sent), then reported with status 0', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let attempts = 0;
    const counting = new Annotary({
      apiKey: 'ak_test',
      baseUrl: `http://127.0.0.1:${port}/v2`,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
      fetch: (req) => (attempts++, fetch(req)),
      env: {},
    });
    const err = (await counting.projects.create({ name: 'Nobody' }).catch((e: unknown) => e)) as AnnotaryError;
    expect(err).toBeInstanceOf(AnnotaryError);
    expect(err.status).toBe(0);
    expect(err.message).toContain('ECONNREFUSED');
    expect(attempts).toBe(3);
  });
});
