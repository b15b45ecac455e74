import { spawnSync } from 'node:child_process';
import os from 'node:os';

/**
 * CPU pinning. On a small machine the server under test and the load generator fight for the
 * same cores, and the figures swing by 30 % from run to run. Each gets its own core through
 * `taskset`: servers on SERVER_CORE, the runner (and so autocannon, which runs inside it) on
 * LOAD_CORE. Without taskset, or with fewer than two cores, nothing is pinned and the run says so.
 */

export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

export interface Pinning {
  enabled: boolean;
  /** Printed with every result: how the processes were placed, or why they were not. */
  description: string;
}

let cached: Pinning | undefined;

export function pinning(): Pinning {
  if (cached) return cached;
  const cores = os.availableParallelism();
  const taskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' });
  if (taskset.error || taskset.status !== 0) {
    cached = { enabled: false, description: 'none: taskset not found, server and load share all cores' };
  } else if (cores < 2) {
    cached = { enabled: false, description: `none: only ${cores} core, server and load share it` };
  } else {
    cached = {
      enabled: true,
      description: `server processes on core ${SERVER_CORE}, load generator on core ${LOAD_CORE} (taskset)`,
    };
  }
  return cached;
}

/** The command line that runs `command args` pinned to `core` (unchanged when pinning is off). */
export function pinnedCommand(core: number, command: string, args: string[]): { command: string; args: string[] } {
  if (!pinning().enabled) return { command, args };
  return { command: 'taskset', args: ['-c', String(core), command, ...args] };
}

/**
 * Pins every thread of this process to `core`. Threads made later inherit the affinity of the
 * thread that makes them, so autocannon and libuv's pool, started afterwards, stay there too.
 */
export function pinSelf(core: number): void {
  if (!pinning().enabled) return;
  const res = spawnSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`taskset could not pin the runner to core ${core}: ${res.stderr.trim()}`);
}
