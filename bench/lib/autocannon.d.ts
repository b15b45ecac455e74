/**
 * The part of autocannon's programmatic API the benchmarks use (the package ships no types and
 * we do not add @types/autocannon). Latencies are in milliseconds, throughput in bytes.
 */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p1: number;
    p2_5: number;
    p10: number;
    p25: number;
    p50: number;
    p75: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
    p99_99: number;
    p99_999: number;
  }

  interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    amount?: number;
    /** Seconds. */
    timeout?: number;
    workers?: number;
    title?: string;
  }

  interface Result {
    title?: string;
    url: string;
    connections: number;
    pipelining: number;
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram & { totalCount: number };
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  /** Without a callback it answers a thenable tracker (an EventEmitter with then/catch). */
  function autocannon(opts: Options): PromiseLike<Result> & { stop(): void };
  export default autocannon;
}
