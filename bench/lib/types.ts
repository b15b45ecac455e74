/**
 * The contract between the runner (bench/run.ts) and the benchmarks (one file each in bench/).
 *
 * A benchmark file default-exports `defineBenchmark({ name, description, run })`. The runner
 * finds it by itself (see registry.ts): adding a benchmark is adding one file.
 */

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

export interface BenchOptions {
  /** Store the Annotary server under test runs on. */
  engine: Engine;
  /** Seconds of measured load per scenario (`--duration`, default 10). */
  durationSec: number;
  /** Seconds of unmeasured load before each measured run (`--warmup`, default 2). */
  warmupSec: number;
  /** Start server processes under `node --cpu-prof`; the runner prints where the time went. */
  profile: boolean;
  /** Every other `--flag value` of the command line, for options of one benchmark only. */
  extra: Readonly<Record<string, string>>;
}

/** A table the runner prints aligned and stores in the JSON result as it is. */
export interface Table {
  columns: string[];
  rows: (string | number)[][];
}

export interface Result {
  /** The figures, printed as a table. */
  table: Table;
  /** One line that says what the figures mean, e.g. "Annotary 4,100 req/s = 0.31 x bare Fastify". */
  summary: string;
  /** Raw figures for the JSON file (bench/results/<name>-<engine>.json): anything JSON can hold. */
  data: Record<string, unknown>;
  /** Lines printed after the summary: caveats, notes on validity. */
  notes?: string[];
}

export interface Benchmark {
  /** Short kebab-case name used on the command line and in the result file name. */
  name: string;
  /** One sentence: what is measured, on what. */
  description: string;
  run(opts: BenchOptions): Promise<Result>;
}

/** Identity function that gives a benchmark file its type checking. */
export function defineBenchmark(b: Benchmark): Benchmark {
  return b;
}
