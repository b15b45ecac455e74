import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimitStore } from '../../src/adapters/rate-limit/rate-limit-store.js';
import { type LogLevel, loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildApp } from '../../src/http/app.js';
import { bootstrap } from '../../src/services/identity/identity.service.js';
import { makeStore } from '../helpers/stores.js';

/** A rate-limit store that is down: every request then logs a warning through `req.log`. */
const downStore: RateLimitStore = {
  hit: () => Promise.reject(new Error('connection refused')),
  peek: () => Promise.reject(new Error('connection refused')),
  close: () => Promise.resolve(),
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanups.splice(0).reverse()) await done();
});

/** An app logging JSON lines at `level` into an array; the rate-limit store is down if asked. */
async function appLogging(level: LogLevel, opts: { storeDown?: boolean } = {}) {
  const store = await makeStore('sqlite');
  cleanups.push(() => store.cleanup());
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ ANNOTARY_DATA_DIR: store.dataDir, LOG_LEVEL: level });
  // Counts the child loggers made, to see that a request that logs nothing makes none.
  const logger = pino({ level }, sink);
  const makeChild = logger.child.bind(logger);
  const children = { made: 0 };
  logger.child = ((...args: Parameters<typeof makeChild>) => {
    children.made += 1;
    return makeChild(...args);
  }) as typeof logger.child;
  const ctx = await createContext(config, {
    store,
    migrated: true,
    log: logger,
    ...(opts.storeDown ? { rateLimits: downStore } : {}),
  });
  cleanups.push(() => ctx.close());
  const boot = await bootstrap(store.db, ctx.clock, { plan: config.defaultPlan });
  const app = await buildApp(ctx);
  cleanups.push(() => app.close());
  const get = (url: string, apikey = boot!.apiKey!) => app.inject({ method: 'GET', url, headers: { apikey } });
  return { lines, get, children, key: boot!.apiKey! };
}

describe('the request log', () => {
  it('writes one line per request with its id, route and status', async () => {
    const { lines, get, children } = await appLogging('info');
    children.made = 0;
    const first = await get('/v2/listProjects');
    const second = await get('/v2/project/0123456789abcdef01234567');
    expect([first.statusCode, second.statusCode]).toEqual([200, 404]);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toEqual([
      expect.objectContaining({ level: 30, reqId: 'req-1', method: 'GET', route: '/v2/listProjects', status: 200 }),
      expect.objectContaining({ reqId: 'req-2', route: '/v2/project/:projectId', status: 404 }),
    ]);
    // Neither logged anything through req.log: no child logger was made for them.
    expect(children.made).toBe(0);
  });

  it('names the client address and the caller by user and key ids, never by the key', async () => {
    const { lines, get, key } = await appLogging('info');
    expect((await get('/v2/listProjects')).statusCode).toBe(200);
    expect((await get('/v2/listProjects', 'ak_a-wrong-key')).statusCode).toBe(401);
    const [served, refused] = lines.filter((l) => l.msg === 'request');
    expect(served).toMatchObject({ ip: '127.0.0.1', userId: expect.any(String), keyId: expect.any(String) });
    expect(refused).toMatchObject({ ip: '127.0.0.1', status: 401 });
    expect(refused?.userId).toBeUndefined();
    const written = JSON.stringify(lines);
    expect(written).not.toContain(key);
    expect(written).not.toContain('ak_a-wrong-key');
  });

  it("keeps the request's id on what a request logs through req.log, at every level", async () => {
    const { lines, get, children } = await appLogging('warn', { storeDown: true });
    children.made = 0;
    expect((await get('/v2/listProjects')).statusCode).toBe(200);
    expect((await get('/v2/listProjects')).statusCode).toBe(200);
    // At `warn` the request lines are not written, the warnings are, each with its request's id.
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    const warnings = lines.filter((l) => l.msg === 'rate-limit store unavailable; request not counted');
    expect(warnings.map((l) => [l.level, l.reqId])).toEqual([
      [40, 'req-1'],
      [40, 'req-2'],
    ]);
    expect(children.made).toBe(2);
  });

  it('writes nothing below its level', async () => {
    const { lines, get } = await appLogging('error', { storeDown: true });
    expect((await get('/v2/listProjects')).statusCode).toBe(200);
    expect(lines).toEqual([]);
  });
});
