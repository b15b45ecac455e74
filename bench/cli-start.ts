/**
 * Start time of the `annotary` command on a built install (`node dist/cli/index.js`), as a user
 * feels it: from spawning the process to its exit, for commands that do little else. The
 * server answering the API commands runs on the server core; each command runs pinned to the
 * load core, one at a time. `node -e ''` is the floor: what Node itself costs on this machine.
 *
 * Wall time moves with the machine's load; so each run also reports its CPU time (user + sys
 * of the command and its threads, from bash's `times`), and, when valgrind is installed, one run
 * of each command counts the instructions it executes (callgrind), which the load does not move.
 *
 *   npm run bench -- cli-start [--runs 15] [--instructions false]
 */
import { spawnSync } from 'node:child_process';
import { BENCH_API_KEY, BENCH_OWNER_EMAIL, BENCH_SECRET_KEY, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { LOAD_CORE, pinnedCommand } from './lib/cpu.js';
import { ms, num } from './lib/format.js';
import { type Summary, summarize } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

interface Case {
  label: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * Runs the command under bash, which reports on its last lines of stderr the command's wall time
 * (fork to reap, without bash's own start) and its CPU time (`times`: children's user and sys,
 * every thread of the process counted, to the millisecond).
 */
const TIMED = [
  't0=$EPOCHREALTIME; "$@" >/dev/null; s=$?; t1=$EPOCHREALTIME',
  // `times` prints the shell's own times, then its children's; it must run in this shell (not in a pipe).
  'echo "@wall $t0 $t1" >&2; echo @times >&2; times >&2; exit $s',
].join('\n');

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function seconds(bashTime: string): number {
  const m = /^(\d+)m([\d.]+)s$/.exec(bashTime);
  if (!m) throw new Error(`unexpected \`times\` output: ${bashTime}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** Wall and CPU time of one run, in ms; a failing command stops the benchmark (its figure would lie). */
function timeOnce(c: Case): Sample {
  const pinned = pinnedCommand(LOAD_CORE, 'bash', ['-c', TIMED, 'bash', process.execPath, ...c.args]);
  const res = spawnSync(pinned.command, pinned.args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...c.env },
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`${c.label} exited ${res.status}: ${res.stderr.slice(0, 500)}`);
  const wall = /^@wall ([\d.]+) ([\d.]+)$/m.exec(res.stderr);
  const cpu = /^@times\n\S+ \S+\n(\S+) (\S+)$/m.exec(res.stderr);
  if (!wall || !cpu) throw new Error(`${c.label}: no timing in ${res.stderr.slice(-300)}`);
  return {
    wallMs: (Number(wall[2]) - Number(wall[1])) * 1000,
    cpuMs: (seconds(cpu[1] ?? '') + seconds(cpu[2] ?? '')) * 1000,
  };
}

function valgrindWorks(): boolean {
  const res = spawnSync('valgrind', ['--version'], { stdio: 'ignore' });
  return !res.error && res.status === 0;
}

/**
 * Instructions executed by one run (every thread), counted by callgrind: about 50 times slower
 * than a run, and deterministic to a fraction of a percent whatever the machine is doing.
 */
function instructions(c: Case): number {
  const res = spawnSync(
    'valgrind',
    ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...c.args],
    { cwd: REPO_ROOT, env: { ...process.env, ...c.env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (res.status !== 0) throw new Error(`${c.label} under valgrind exited ${res.status}: ${res.stderr.slice(-500)}`);
  const m = /Collected : (\d+)/.exec(res.stderr);
  if (!m) throw new Error(`${c.label}: callgrind printed no count`);
  return Number(m[1]);
}

export default defineBenchmark({
  name: 'cli-start',
  description: 'start-to-exit time of annotary commands from dist/ (help, API commands, an admin command)',
  async run(opts: BenchOptions): Promise<Result> {
    const runs = Number(opts.extra.runs ?? 15);
    const countInstructions = opts.extra.instructions !== 'false' && valgrindWorks();
    const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
    try {
      const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'CLI' });
      const projectId = created.data.project._id;
      const cli = ['dist/cli/index.js'];
      // No profile file: the key and the address come from the environment, as in CI.
      const apiEnv = {
        ANNOTARY_API_KEY: BENCH_API_KEY,
        ANNOTARY_URL_EU: `${server.url}/v2`,
        ANNOTARY_CONFIG: '/nonexistent',
      };
      const storeEnv = {
        ANNOTARY_DATA_DIR: server.dataDir,
        ANNOTARY_SECRET_KEY: BENCH_SECRET_KEY,
        LOG_LEVEL: 'warn',
        ...(server.schema ? { DATABASE_URL: server.schema.databaseUrl } : {}),
      };
      const cases: Case[] = [
        { label: "node -e '' (the floor)", args: ['-e', ''] },
        { label: 'annotary --help', args: [...cli, '--help'] },
        { label: 'annotary projects list', args: [...cli, 'projects', 'list'], env: apiEnv },
        { label: 'annotary tasks list <p> --json', args: [...cli, 'tasks', 'list', projectId, '--json'], env: apiEnv },
        {
          label: 'annotary keys create (opens the store)',
          args: [...cli, 'keys', 'create', '--email', BENCH_OWNER_EMAIL],
          env: storeEnv,
        },
      ];
      const floor = cases[0]?.label ?? '';
      const measured: Record<string, { wall: Summary; cpu: Summary; instructions?: number }> = {};
      for (const c of cases) {
        timeOnce(c); // warm the file cache
        const samples = Array.from({ length: runs }, () => timeOnce(c));
        measured[c.label] = {
          wall: summarize(samples.map((s) => s.wallMs)),
          cpu: summarize(samples.map((s) => s.cpuMs)),
          ...(countInstructions ? { instructions: instructions(c) } : {}),
        };
      }
      const base = measured[floor];
      const rows = cases.map((c) => {
        const m = measured[c.label];
        if (!m || !base) throw new Error(`no figures for ${c.label}`);
        const mi = (n: number | undefined) => (n === undefined ? 'n/a' : `${num(n / 1e6)} M`);
        const ratio = m.instructions && base.instructions ? `${num(m.instructions / base.instructions, 2)}x` : 'n/a';
        return [c.label, ms(m.wall.p50), ms(m.wall.min), ms(m.cpu.p50), ms(m.cpu.min), mi(m.instructions), ratio, runs];
      });
      const p50 = (label: string) => measured[label]?.cpu.p50 ?? Number.NaN;
      return {
        table: {
          columns: ['command', 'wall p50', 'wall min', 'CPU p50', 'CPU min', 'instructions', 'x floor', 'runs'],
          rows,
        },
        summary:
          `projects list ${ms(p50('annotary projects list'))} of CPU at p50 ` +
          `(${ms(p50('annotary projects list') - p50(floor))} above bare node)`,
        data: measured,
        notes: [
          'CPU = user + sys of the command, every thread (V8 compiles and collects garbage on helper threads).',
          countInstructions
            ? "instructions: one run under valgrind --tool=callgrind, every thread; x floor = against node -e ''."
            : 'instructions: not counted (no valgrind, or --instructions false).',
          'keys create opens the store (migrations check, SQLite or PostgreSQL) and includes that work.',
          'API commands include one request to the local server.',
        ],
      };
    } finally {
      await server.stop();
    }
  },
});
