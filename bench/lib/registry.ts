import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Benchmark } from './types.js';

/**
 * The registry is the folder: every bench/<file>.ts except run.ts is a benchmark and
 * default-exports one (see types.ts). Adding a benchmark is adding a file; nobody edits a list.
 * A file that does not export a well-formed benchmark, or reuses a name, stops the runner.
 */

export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NOT_BENCHMARKS = new Set(['run.ts', 'soak.ts']);

function isBenchmark(v: unknown): v is Benchmark {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Record<string, unknown>;
  return typeof b.name === 'string' && typeof b.description === 'string' && typeof b.run === 'function';
}

export async function loadBenchmarks(): Promise<Benchmark[]> {
  const files = fs
    .readdirSync(BENCH_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !NOT_BENCHMARKS.has(f))
    .sort();
  const found = new Map<string, { benchmark: Benchmark; file: string }>();
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(BENCH_DIR, file)).href)) as { default?: unknown };
    if (!isBenchmark(mod.default)) {
      throw new Error(`bench/${file} must default-export defineBenchmark({ name, description, run })`);
    }
    const clash = found.get(mod.default.name);
    if (clash) throw new Error(`bench/${file} and bench/${clash.file} both name a benchmark "${mod.default.name}"`);
    found.set(mod.default.name, { benchmark: mod.default, file });
  }
  return [...found.values()].map((f) => f.benchmark);
}
