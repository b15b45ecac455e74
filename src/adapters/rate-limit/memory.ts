import { type RateLimitStore, windowOf } from './rate-limit-store.js';

const SWEEP_AT = 10_000;

/** Counters in this process: right for a single node. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { index: number; count: number }>();

  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const { index, resetAt } = windowOf(now, windowMs);
    let entry = this.counters.get(key);
    if (!entry || entry.index !== index) {
      if (this.counters.size >= SWEEP_AT) this.sweep(index);
      entry = { index, count: 0 };
      this.counters.set(key, entry);
    }
    entry.count += 1;
    return Promise.resolve({ count: entry.count, resetAt });
  }

  peek(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const { index, resetAt } = windowOf(now, windowMs);
    const entry = this.counters.get(key);
    return Promise.resolve({ count: entry && entry.index === index ? entry.count : 0, resetAt });
  }

  /** Drops counters of past windows, so many one-off client addresses cannot grow the map. */
  private sweep(index: number): void {
    for (const [key, entry] of this.counters) if (entry.index !== index) this.counters.delete(key);
  }

  close(): Promise<void> {
    this.counters.clear();
    return Promise.resolve();
  }
}
