import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Machine } from './machine.js';
import type { BenchOptions, Result } from './types.js';

/**
 * bench/results/: git-ignored, one JSON file per benchmark and engine, overwritten by each run.
 * A profiled run writes <name>-<engine>-profiled.json: its figures are not comparable.
 */
export const RESULTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'results');

export interface ResultFile extends Result {
  benchmark: string;
  engine: string;
  machine: Machine;
  options: Omit<BenchOptions, 'extra'> & { extra: Record<string, string> };
}

export function writeResult(file: ResultFile): string {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const suffix = file.options.profile ? '-profiled' : '';
  const target = path.join(RESULTS_DIR, `${file.benchmark}-${file.engine}${suffix}.json`);
  fs.writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`);
  return target;
}
