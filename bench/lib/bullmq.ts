import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

/**
 * BullMQ, the queue a team would put in front of its webhook calls, for the baseline of
 * bench/webhook-bullmq.ts. It is not a dependency of the project (its lock entries made `npm ci`
 * fail on a clean clone): the benchmark installs this pinned version once into a folder of its
 * own outside the project, `$TMPDIR/annotary-bench-bullmq`, and imports it from there.
 */
export const BULLMQ_VERSION = '5.81.5';
export const BULLMQ_DIR = path.join(os.tmpdir(), 'annotary-bench-bullmq');

const run = promisify(execFile);

/** The installed package's folder (installs it first when missing). */
export async function bullmqEntry(): Promise<string> {
  const pkg = path.join(BULLMQ_DIR, 'node_modules', 'bullmq', 'package.json');
  const installed = fs.existsSync(pkg) && (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  if (installed !== BULLMQ_VERSION) {
    process.stdout.write(`  installing bullmq@${BULLMQ_VERSION} into ${BULLMQ_DIR} (outside the project)\n`);
    fs.mkdirSync(BULLMQ_DIR, { recursive: true });
    await run('npm', [
      'install',
      '--prefix',
      BULLMQ_DIR,
      '--no-save',
      '--no-audit',
      '--no-fund',
      `bullmq@${BULLMQ_VERSION}`,
    ]);
  }
  return path.join(BULLMQ_DIR, 'node_modules', 'bullmq');
}

/** The parts of BullMQ the benchmark uses. */
export interface BullMq {
  Queue: new (
    name: string,
    opts: { connection: { host: string; port: number } },
  ) => {
    addBulk(jobs: { name: string; data: unknown; opts?: Record<string, unknown> }[]): Promise<unknown[]>;
    getJobCounts(...types: string[]): Promise<Record<string, number>>;
    getJobs(types: string[], start: number, end: number, asc: boolean): Promise<{ finishedOn?: number }[]>;
    obliterate(opts: { force: boolean }): Promise<void>;
    close(): Promise<void>;
  };
  Worker: new (
    name: string,
    processor: (job: { id?: string; data: unknown; attemptsMade: number }) => Promise<unknown>,
    opts: { connection: { host: string; port: number }; concurrency: number },
  ) => { close(): Promise<void>; on(event: string, fn: (...args: unknown[]) => void): void };
}

export async function loadBullMq(): Promise<BullMq> {
  const entry = process.env.BENCH_BULLMQ_ENTRY ?? (await bullmqEntry());
  // Its CommonJS build: the ESM one names exports of a CommonJS dependency that tsx's loader misses.
  return createRequire(import.meta.url)(entry) as BullMq;
}

/** host and port of a redis:// URL, as BullMQ's connection option takes them. */
export function redisConnection(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379) };
}
