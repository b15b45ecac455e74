import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/access.js';
import { createPrincipalCache, principalsChanged } from '../../src/services/identity/principal-cache.js';
import type { Executor } from '../../src/store/db.js';

/** The cache only uses its store as a name for `principalsChanged`: any object stands for one. */
const storeName = () => ({}) as unknown as Executor;

const caller: Principal = {
  keyId: 'k',
  userId: 'u',
  email: 'e@example.com',
  orgId: 'o',
  orgRole: 'member',
  plan: 'standard',
  planLimit: null,
};

/** A lookup that answers what `answer` holds at the time, and counts its runs. */
function lookup(answer: { principal: Principal | undefined }) {
  const counted = { runs: 0, load: () => ((counted.runs += 1), Promise.resolve(answer.principal)) };
  return counted;
}

describe('the negative key cache', () => {
  it('looks a wrong key up once, not once per request', async () => {
    const db = storeName();
    const cache = createPrincipalCache(db, { ttlMs: 600_000 });
    const counted = lookup({ principal: undefined });
    for (let i = 0; i < 100; i += 1) expect(await cache.resolve('wrong', counted.load)).toBeUndefined();
    expect(counted.runs).toBe(1);
    await cache.close();
  });

  it('never refuses a key that became valid: issuing it empties the cache', async () => {
    const db = storeName();
    const cache = createPrincipalCache(db, { ttlMs: 600_000 });
    const answer: { principal: Principal | undefined } = { principal: undefined };
    const counted = lookup(answer);
    expect(await cache.resolve('later', counted.load)).toBeUndefined();
    answer.principal = caller;
    await principalsChanged(db);
    expect(await cache.resolve('later', counted.load)).toEqual(caller);
    expect(counted.runs).toBe(2);
    await cache.close();
  });

  it('keeps nothing with a TTL of 0', async () => {
    const cache = createPrincipalCache(storeName(), { ttlMs: 0 });
    const counted = lookup({ principal: undefined });
    await cache.resolve('wrong', counted.load);
    await cache.resolve('wrong', counted.load);
    expect(counted.runs).toBe(2);
    await cache.close();
  });
});
