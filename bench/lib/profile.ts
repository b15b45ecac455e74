import fs from 'node:fs';
import path from 'node:path';

/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and says where the time went: self time per
 * function and per owner (an npm package, a file of ours, node internals, GC), and inclusive
 * time of our own functions (files of this repository outside node_modules: everything they
 * called counts). Idle time is left out, so shares are of the time the process was busy.
 * Files run through tsx have no useful line numbers, so ours are named by file only. Work that
 * resumes after an `await` has no caller on its stack, so inclusive times cover synchronous
 * stretches only: read them as a lower bound.
 *
 * Profile timestamps are CLOCK_MONOTONIC microseconds, the clock of process.hrtime in every
 * process, so windows taken with monotonicNowUs() in the runner select the samples of the
 * measured runs and leave out start-up and warm-up.
 */

/** process.hrtime in microseconds: the clock of CPU profile timestamps. */
export function monotonicNowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface TimeWindow {
  fromUs: number;
  toUs: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface TimeShare {
  name: string;
  ms: number;
  /** Share of busy time, 0 to 1. */
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byOwner: TimeShare[];
  byFunction: TimeShare[];
  /** Our functions with everything under them; a function on the stack twice counts once. */
  ownInclusive: TimeShare[];
}

/** The owner under which the database's own execution is filed. */
export const SQLITE_NATIVE = 'SQLite (native: preparing and running statements)';

/**
 * better-sqlite3 runs SQLite synchronously inside C++ callbacks, and V8 gives those no frame of
 * their own: their time is the self time of the JavaScript function that called them. Those
 * callers are better-sqlite3's own wrappers (prepare, pragma, transaction) and the two methods of
 * Kysely's SQLite driver that call `stmt.all/run/iterate`, whose own JavaScript is a few lines.
 * Their self time is the database's work, not the library's: it is filed under SQLITE_NATIVE, as
 * is that of our own wrappers around better-sqlite3's calls (src/store/db.ts, named `sqlite...`).
 * (PostgreSQL's work happens in its own processes: runLoad reports it as other CPU.)
 */
function isSqliteNativeCaller(url: string, functionName: string): boolean {
  if (url.includes('/node_modules/better-sqlite3')) return true;
  // The store's statement wrappers (src/store/db.ts): a call and a row literal per row.
  if (/\/src\/store\/db\.(ts|js)$/.test(url) && /^sqlite[A-Z]/.test(functionName)) return true;
  return (
    /\/node_modules\/kysely\/dist\/[^/]+\/dialect\/sqlite\/sqlite-driver\.js$/.test(url) &&
    (functionName === 'executeQuery' || functionName === 'streamQuery')
  );
}

/** "fastify", "kysely", "src/services/projects/project.service.ts", "node internals", "(garbage collector)"... */
export function ownerOf(url: string, functionName: string, root: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (isSqliteNativeCaller(url, functionName)) return SQLITE_NATIVE;
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const file = url.replace(/^file:\/\//, '');
  return file.startsWith(root) ? path.relative(root, file) : file;
}

/** "name file:line" for a package or node frame, "name src/file.ts" for ours. */
function frameName(frame: ProfileNode['callFrame'], root: string): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  if (frame.url.startsWith('node:')) return `${name} ${frame.url}:${frame.lineNumber + 1}`;
  if (isSqliteNativeCaller(frame.url, name)) return `SQLite via ${name} ${path.basename(frame.url)}`;
  const nm = frame.url.lastIndexOf('/node_modules/');
  if (nm >= 0) return `${name} ${frame.url.slice(nm + '/node_modules/'.length)}:${frame.lineNumber + 1}`;
  return `${name} ${ownerOf(frame.url, name, root)}`;
}

function isOurs(url: string, root: string): boolean {
  const file = url.replace(/^file:\/\//, '');
  return file.startsWith(root) && !file.includes('/node_modules/');
}

export function summarizeProfile(file: string, root: string, top = 15, windows?: TimeWindow[]): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (windows && !windows.some((w) => at >= w.fromUs && at <= w.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });

  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url } = node.callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const owner = ownerOf(url, functionName, root);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const fn = frameName(node.callFrame, root);
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const seen = new Set<string>();
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up)?.callFrame;
      if (!frame || !isOurs(frame.url, root)) continue;
      const name = frameName(frame, root);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  const busyUs = [...owners.values()].reduce((a, b) => a + b, 0);
  const rank = (m: Map<string, number>): TimeShare[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busyUs ? us / busyUs : 0 }));
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    byOwner: rank(owners),
    byFunction: rank(functions),
    ownInclusive: rank(inclusive),
  };
}

/**
 * The main thread's profile in `dir`. Node names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>;
 * under `--import tsx` the loader-hooks thread writes one too (thread 1), which is not the server.
 */
export function mainThreadProfile(dir: string): string | undefined {
  if (!fs.existsSync(dir)) return undefined;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  const main = files.filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  const bySize = (list: string[]) => list.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  return bySize(main) ?? bySize(files);
}

/** Where profiles of a run go: bench/results/profiles/<label>/ (emptied first). */
export function profileDir(resultsDir: string, label: string): string {
  const dir = path.join(resultsDir, 'profiles', label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Node flags that make a process write its CPU profile into `dir` when it exits. */
export function cpuProfFlags(dir: string): string[] {
  return ['--cpu-prof', '--cpu-prof-dir', dir];
}

/** Lines for a result's notes: the biggest owners and functions of the profile in `dir`. */
export function profileReport(
  label: string,
  dir: string,
  root: string,
  top = 10,
  windows?: TimeWindow[],
): { lines: string[]; summary?: ProfileSummary } {
  const file = mainThreadProfile(dir);
  if (!file) return { lines: [`${label}: no CPU profile was written in ${dir}`] };
  const s = summarizeProfile(file, root, top, windows);
  const pct = (x: TimeShare) => `${(x.share * 100).toFixed(1).padStart(5)} %  ${x.name}`;
  return {
    summary: s,
    lines: [
      `${label}: CPU profile ${path.relative(root, file)} (${windows ? 'measured runs only' : 'whole process'}: busy ${Math.round(s.busyMs)} ms, idle ${Math.round(s.idleMs)} ms)`,
      '  self time by owner:',
      ...s.byOwner.map((x) => `    ${pct(x)}`),
      '  self time by function:',
      ...s.byFunction.map((x) => `    ${pct(x)}`),
      ...(s.ownInclusive.length
        ? ['  inclusive time of our functions (synchronous parts):', ...s.ownInclusive.map((x) => `    ${pct(x)}`)]
        : []),
    ],
  };
}
