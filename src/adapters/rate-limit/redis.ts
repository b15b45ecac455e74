import { Redis } from 'ioredis';
import { type RateLimitStore, windowOf } from './rate-limit-store.js';

/** Counters in Redis, shared by every API process that points at it. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, {
      // Fail fast instead of queueing requests behind a dead connection.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
    });
    // Errors surface on each hit(); the client reconnects by itself.
    this.redis.on('error', () => undefined);
  }

  /**
   * Waits, at most a second, for a connection still being opened: without the offline queue a
   * command sent before it is ready fails, and the first requests after a start would go
   * uncounted. A connection that is down (reconnecting, ended) is not waited for.
   */
  private connected(): Promise<void> {
    const status = this.redis.status;
    if (status !== 'wait' && status !== 'connecting' && status !== 'connect') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        this.redis.off('error', done);
        resolve();
      };
      const timer = setTimeout(done, 1000);
      this.redis.once('ready', done);
      this.redis.once('error', done);
    });
  }

  async hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const { index, resetAt } = windowOf(now, windowMs);
    const redisKey = `annotary:rl:${key}:${index}`;
    await this.connected();
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, windowMs * 2)
      .exec();
    const first = results?.[0];
    if (!first || first[0]) throw first?.[0] ?? new Error('redis transaction failed');
    return { count: Number(first[1]), resetAt };
  }

  async peek(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const { index, resetAt } = windowOf(now, windowMs);
    await this.connected();
    const value = await this.redis.get(`annotary:rl:${key}:${index}`);
    return { count: value === null ? 0 : Number(value), resetAt };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
