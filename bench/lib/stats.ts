/** Small statistics helpers for benchmarks that time things themselves (not through autocannon). */

/**
 * The p-th percentiles (0 to 100) of `samples`, nearest-rank method: the value at rank
 * ceil(p/100 * n), so p50 of [1, 2, 3, 4] is 2 and p100 is the maximum. Empty input gives NaN.
 */
export function percentiles(samples: readonly number[], ps: readonly number[]): Record<string, number> {
  const sorted = [...samples].sort((a, b) => a - b);
  const out: Record<string, number> = {};
  for (const p of ps) {
    if (p < 0 || p > 100) throw new RangeError(`percentile ${p} is outside 0..100`);
    const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
    out[`p${String(p).replace('.', '_')}`] = sorted.length ? (sorted[rank - 1] as number) : Number.NaN;
  }
  return out;
}

export interface Summary {
  count: number;
  mean: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
}

export function summarize(samples: readonly number[]): Summary {
  const p = percentiles(samples, [50, 90, 99]);
  const total = samples.reduce((a, b) => a + b, 0);
  return {
    count: samples.length,
    mean: samples.length ? total / samples.length : Number.NaN,
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
    p50: p.p50 ?? Number.NaN,
    p90: p.p90 ?? Number.NaN,
    p99: p.p99 ?? Number.NaN,
  };
}

/** Times `fn` in milliseconds (high-resolution clock). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** The median time of `rounds` calls of a synchronous `f`, in milliseconds. */
export function medianMs(f: () => unknown, rounds: number): number {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    f();
    samples.push(performance.now() - t);
  }
  return percentiles(samples, [50]).p50 as number;
}
