import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../../src/adapters/rate-limit/redis.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('the Redis rate-limit store', () => {
  it('counts the hits sent while its connection is still being opened', async () => {
    const store = new RedisRateLimitStore(REDIS_URL);
    try {
      const key = `test-${randomUUID()}`;
      const now = Date.now();
      // Sent at once, before the connection is ready: none may be lost.
      const hits = await Promise.all([1, 2, 3].map(() => store.hit(key, 60_000, now)));
      expect(hits.map((h) => h.count).sort()).toEqual([1, 2, 3]);
      expect((await store.peek(key, 60_000, now)).count).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('fails fast when nothing answers at its address', async () => {
    const store = new RedisRateLimitStore('redis://127.0.0.1:1');
    try {
      const started = Date.now();
      await expect(store.hit(`test-${randomUUID()}`, 60_000, started)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await store.close();
    }
  });
});
