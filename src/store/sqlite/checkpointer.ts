import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sqliteModuleFor } from './driver.js';

/**
 * WAL checkpoints on a thread of their own. With SQLite's automatic checkpoints, the commit that
 * takes the log past 1,000 pages copies the log into the database file and waits for two disk
 * syncs, and better-sqlite3 runs it on the event loop: every request and job of the process
 * waited with it (commits averaged 1.5 ms under a webhook load, against 0.26 ms without
 * checkpoints; docs/benchmarks.md). Here a second connection, on a worker thread, runs a
 * PASSIVE checkpoint every `everyMs`: it copies what no reader still needs, never blocks the
 * writers, and the log restarts from its beginning once it has been copied whole.
 *
 * Durability is not changed: a commit is in the log (synchronous = NORMAL, as before) whoever
 * checkpoints it, and a checkpoint syncs the log before it copies it. The main connection keeps
 * an automatic checkpoint as a backstop (BACKSTOP_PAGES), for a thread that stopped or fell
 * behind.
 */

/** The main connection's own automatic checkpoint, far above what the thread lets the log grow to. */
export const BACKSTOP_PAGES = 10_000;
const DEFAULT_EVERY_MS = 200;
const DEFAULT_DELAY_MS = 1_000;

// CommonJS, evaluated in the thread: no loader or transpiler involved.
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or failing: the next tick tries again; the main connection's backstop bounds the log.
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Starts the thread after `delayMs` (off the process's start-up, which needs the CPU more) and
 * checkpoints every `everyMs` from then on.
 */
export function startCheckpointer(file: string, opts: { everyMs?: number; delayMs?: number } = {}): Checkpointer {
  const everyMs = opts.everyMs ?? DEFAULT_EVERY_MS;
  let worker: Worker | undefined;
  let exited: Promise<void> | undefined;
  let stopping = false;
  const start = () => {
    if (stopping) return;
    const driver = createRequire(import.meta.url).resolve(sqliteModuleFor(process.versions.node));
    const w = new Worker(THREAD_CODE, { eval: true, workerData: { file, driver, everyMs } });
    exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    // The checkpoints are upkeep: they never keep the process alive, and a thread that dies
    // leaves the backstop in charge.
    w.unref();
    w.on('error', () => undefined);
    worker = w;
  };
  const timer = setTimeout(start, opts.delayMs ?? DEFAULT_DELAY_MS);
  timer.unref();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      // Held by the thread until it has closed its connection, or the process could end first.
      worker?.ref();
      worker?.postMessage('stop');
      await exited;
    },
  };
}
