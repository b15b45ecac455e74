import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One benchmark run at a time per machine. Two runners at once would pin both their servers to
 * the server core and both load generators to the load core, and each would measure half a
 * machine. The runner takes this lock (a file in the temp folder holding its pid) before it
 * measures and waits while another live runner holds it; a lock whose process is gone is stale
 * and taken over.
 */

export const LOCK_FILE = path.join(os.tmpdir(), 'annotary-bench.lock');

interface Holder {
  pid: number;
  command: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function readHolder(): Holder | undefined {
  try {
    return JSON.parse(fs.readFileSync(LOCK_FILE, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}

/**
 * Its runner died without cleaning up (Ctrl-C, kill): take the lock over. Removing the stale file
 * and creating a fresh one would race: another waiter that also saw the dead holder could remove
 * the lock this waiter had just created, and both would run. Instead each waiter atomically
 * replaces the file with its own holder (write aside, rename over), waits a moment, and holds the
 * lock only if the file still names it; the last rename wins and the others go back to waiting.
 */
async function takeOver(me: Holder): Promise<boolean> {
  const aside = `${LOCK_FILE}.${process.pid}`;
  fs.writeFileSync(aside, JSON.stringify(me));
  fs.renameSync(aside, LOCK_FILE);
  await sleep(500);
  return readHolder()?.pid === me.pid;
}

/** Waits for the lock (as long as it takes), then holds it until this process exits. */
export async function acquireBenchLock(onWait: (holder: Holder) => void): Promise<void> {
  const me: Holder = { pid: process.pid, command: process.argv.slice(2).join(' '), since: new Date().toISOString() };
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(LOCK_FILE, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readHolder();
    if (holder && alive(holder.pid)) {
      if (!told) onWait(holder);
      told = true;
      await sleep(1000);
    } else if (!holder && ageMs(LOCK_FILE) < 2000) {
      await sleep(100); // being written right now
    } else if (await takeOver(me)) {
      break;
    }
  }
  process.once('exit', () => {
    if (readHolder()?.pid === process.pid) fs.rmSync(LOCK_FILE, { force: true });
  });
}
