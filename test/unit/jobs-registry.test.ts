import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { DEFAULT_JOB_OPTIONS, JobRegistry, JobWorker, retryDelayMs, shortError } from '../../src/jobs/index.js';

interface Kinds {
  'test.echo': { n: number };
  'test.other': null;
  'test.third': null;
}
const kinds = { 'test.echo': {}, 'test.other': {}, 'test.third': {} };

describe('job registry', () => {
  // The worker must refuse before it touches the store; an empty in-memory one suffices.
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ sqliteFile: ':memory:' });
  });
  afterAll(() => store.close());

  it('refuses to start while a declared kind has no handler, naming the kinds', () => {
    const registry = new JobRegistry<Kinds>(kinds).handle('test.echo', async () => undefined);
    expect(() => registry.assertComplete()).toThrow('job kinds without a handler: test.other, test.third');
    expect(() => new JobWorker({ store, registry }).start()).toThrow(
      'job kinds without a handler: test.other, test.third',
    );
  });

  it('takes one handler per declared kind', () => {
    const registry = new JobRegistry<Kinds>(kinds).handle('test.echo', async () => undefined);
    expect(() => registry.handle('test.echo', async () => undefined)).toThrow(/already has a handler/);
    const loose = registry as unknown as JobRegistry<{ 'test.nope': null }>;
    expect(() => loose.handle('test.nope', async () => undefined)).toThrow(/not declared/);
  });

  it('resolves per-kind options over the registry defaults', () => {
    const registry = new JobRegistry<Kinds>(
      { 'test.echo': { maxAttempts: 2 }, 'test.other': {}, 'test.third': { leaseMs: 500 } },
      { backoffBaseMs: 250 },
    );
    expect(registry.optionsFor('test.echo')).toEqual({ ...DEFAULT_JOB_OPTIONS, maxAttempts: 2, backoffBaseMs: 250 });
    expect(registry.optionsFor('test.third').leaseMs).toBe(500);
    expect(() => new JobRegistry<Kinds>({ ...kinds, 'test.echo': { maxAttempts: 0 } })).toThrow(/invalid options/);
  });
});

describe('retry delays', () => {
  it('double per attempt within their jitter band, up to the cap', () => {
    const opts = { ...DEFAULT_JOB_OPTIONS, backoffBaseMs: 100, backoffMaxMs: 1_000 };
    const bands = [
      [1, 50, 99],
      [2, 100, 199],
      [3, 200, 399],
      [6, 500, 999],
    ] as const;
    for (const [attempt, low, high] of bands) {
      expect(retryDelayMs(attempt, opts, () => 0)).toBe(low);
      expect(retryDelayMs(attempt, opts, () => 0.999999)).toBe(high);
    }
  });
});

describe('error text kept on a job', () => {
  it('is one bounded line without a stack', () => {
    const err = new TypeError(`bad\n  value ${'y'.repeat(1_000)}`);
    const text = shortError(err);
    expect(text.startsWith('TypeError: bad value yyy')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(500);
    expect(shortError(new Error('plain'))).toBe('plain');
    expect(shortError({ secret: 'payload' })).toBe('non-error value thrown');
  });
});
