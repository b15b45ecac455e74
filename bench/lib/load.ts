import autocannon from 'autocannon';
import { cpuSecondsOf, type OtherCpu, watchOtherCpu } from './interference.js';
import { monotonicNowUs, type TimeWindow } from './profile.js';

/**
 * HTTP load with autocannon's programmatic API, inside the runner process (which run.ts pins to
 * the load core). A warm-up run lets the server's JIT, caches and connection pools settle; its
 * figures are thrown away. A measured run with any non-2xx answer or socket error throws: a
 * figure for 401s or 429s is not a figure for the route.
 */

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** Default 10. */
  connections?: number;
  /** Default 1: one request in flight per connection. */
  pipelining?: number;
  durationSec: number;
  /** Default 2. 0 skips the warm-up. */
  warmupSec?: number;
  /**
   * Processes taking part in the measurement (the server under test; this process is always
   * counted): CPU used by any other process during the measured run is reported as interference.
   */
  pids?: number[];
}

export interface LoadFigures {
  /** Mean requests per second over the measured run (autocannon samples every second). */
  reqPerSec: number;
  /** Requests completed in the measured run. */
  requests: number;
  /** Requests completed in the warm-up (for per-request figures taken over the whole process life). */
  warmupRequests: number;
  durationSec: number;
  /** Latencies in milliseconds. */
  latency: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** Mean response bytes per second. */
  bytesPerSec: number;
  connections: number;
  pipelining: number;
  /** When the measured run ran (monotonic clock): selects its samples in a CPU profile. */
  window: TimeWindow;
  /**
   * CPU that processes other than ours used during the measured run, in cores, with the
   * biggest users (a database server counts as other). Undefined without /proc.
   */
  otherCpu: OtherCpu | undefined;
  /**
   * CPU time the processes under test (`pids`) spent per request of the measured run, in µs
   * (10 ms clock ticks over the whole run). Far steadier than req/s on a busy machine: another
   * process slows the server down, but takes little from what each request costs it.
   */
  cpuUsPerRequest: number | undefined;
}

export async function runLoad(opts: LoadOptions): Promise<LoadFigures> {
  const base = {
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers ?? {},
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    connections: opts.connections ?? 10,
    pipelining: opts.pipelining ?? 1,
  };
  const warmup = opts.warmupSec ?? 2;
  const warm = warmup > 0 ? await autocannon({ ...base, duration: warmup }) : undefined;
  const fromUs = monotonicNowUs();
  const watch = watchOtherCpu([process.pid, ...(opts.pids ?? [])]);
  const cpuBefore = cpuSecondsOf(opts.pids ?? []);
  const r = await autocannon({ ...base, duration: opts.durationSec });
  const cpuSeconds = cpuSecondsOf(opts.pids ?? []) - cpuBefore;
  const otherCpu = watch.stop();
  const window = { fromUs, toUs: monotonicNowUs() };
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0 || r.latency.totalCount === 0) {
    const codes = Object.entries(r.statusCodeStats)
      .map(([code, s]) => `${code}: ${s.count}`)
      .join(', ');
    throw new Error(
      `load on ${opts.url} was not clean: ${r.non2xx} non-2xx (${codes}), ${r.errors} errors, ${r.timeouts} timeouts`,
    );
  }
  return {
    reqPerSec: r.requests.average,
    requests: r.latency.totalCount,
    warmupRequests: warm?.latency.totalCount ?? 0,
    durationSec: r.duration,
    latency: {
      mean: r.latency.mean,
      p50: r.latency.p50,
      p90: r.latency.p90,
      p99: r.latency.p99,
      max: r.latency.max,
    },
    bytesPerSec: r.throughput.average,
    connections: r.connections,
    pipelining: r.pipelining,
    window,
    otherCpu,
    cpuUsPerRequest: opts.pids?.length && r.latency.totalCount ? (cpuSeconds * 1e6) / r.latency.totalCount : undefined,
  };
}
