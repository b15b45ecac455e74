import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinning } from './cpu.js';

/** What a figure was measured on: stored with every result and copied into docs/benchmarks.md. */
export interface Machine {
  /** ISO date and time of the run. */
  date: string;
  cpuModel: string;
  /** Cores of the machine (not the ones this process is pinned to). */
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1-minute load average when the run started: above ~0.5, something else was busy. */
  loadAverage: number;
  pinning: string;
  /** Commit of the code under test, "+ changes" when the working tree differs from it. */
  revision: string;
}

function cpuModel(): string {
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.slice(line.indexOf(':') + 1).trim();
  } catch {
    // not Linux: fall through
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

/** Read-only git queries; "unknown" outside a repository. */
function revision(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return `${head.stdout.trim()}${status.stdout.trim() ? ' + changes' : ''}`;
}

export function describeMachine(): Machine {
  return {
    date: new Date().toISOString(),
    cpuModel: cpuModel(),
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    pinning: pinning().description,
    revision: revision(),
  };
}

/** One line for the top of a run's output. */
export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}, load ${m.loadAverage}, code ${m.revision}`;
}

function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** Share of all cores' time that was busy over the next `ms` (0 to 1); undefined without /proc/stat. */
export async function cpuBusyShare(ms = 1000): Promise<number | undefined> {
  const a = cpuTimes();
  await sleep(ms);
  const b = cpuTimes();
  if (!a || !b || b.total === a.total) return undefined;
  return (b.busy - a.busy) / (b.total - a.total);
}

/**
 * Waits until the machine is quiet (under `threshold` of all cores busy for three two-second
 * windows in a row), for at most `maxSec` seconds; answers the last busy share seen. On a shared
 * machine this keeps other people's test runs out of the figures, or at least says they were there.
 */
export async function waitForQuiet(maxSec: number, threshold = 0.15): Promise<number | undefined> {
  const deadline = Date.now() + maxSec * 1000;
  let quietInARow = 0;
  let busy: number | undefined;
  while (quietInARow < 3 && Date.now() < deadline) {
    busy = await cpuBusyShare(2000);
    if (busy === undefined) return undefined;
    quietInARow = busy <= threshold ? quietInARow + 1 : 0;
  }
  return busy;
}
