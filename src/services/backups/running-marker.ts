import fs from 'node:fs';
import path from 'node:path';

/**
 * Every long-running process on a data folder (`serve`, `worker`) leaves a marker file
 * `run/<pid>.pid` there while it runs, so `annotary restore` can tell a live store from a
 * stopped one. A process that died without removing its marker is recognised by its pid no
 * longer running; its marker is then ignored (and cleared by the next restore).
 */

const RUN_DIR = 'run';

export function markRunning(dataDir: string, what: string): () => void {
  const dir = path.join(dataDir, RUN_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.pid`);
  fs.writeFileSync(file, `${what}\n`);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    fs.rmSync(file, { force: true });
  };
  process.once('exit', release);
  return release;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Processes that hold the data folder now, by pid, with what they said they are. */
export function liveProcesses(dataDir: string): { pid: number; what: string }[] {
  const dir = path.join(dataDir, RUN_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const m = /^(\d+)\.pid$/.exec(name);
    if (!m) return [];
    const pid = Number(m[1]);
    if (pid === process.pid || !alive(pid)) return [];
    const what = fs.readFileSync(path.join(dir, name), 'utf8').trim();
    return [{ pid, what }];
  });
}

export function clearStaleMarkers(dataDir: string): void {
  fs.rmSync(path.join(dataDir, RUN_DIR), { recursive: true, force: true });
}
