/**
 * Start time of the `annotary` command on a built install (`node dist/cli/index.js`), as a user
 * feels it: from spawning the process to its exit, for commands that do little else. The
 * server answering the API commands runs on the server core; each command runs pinned to the
 * load core, one at a time. `node -e ''` is the floor: what Node itself costs on this machine.
 *
 *   npm run bench -- cli-start [--runs 15]
 */
import { spawnSync } from 'node:child_process';
import { BENCH_API_KEY, BENCH_OWNER_EMAIL, BENCH_SECRET_KEY, REPO_ROOT, startAnnotary } from './lib/annotary.js';
import { LOAD_CORE, pinnedCommand } from './lib/cpu.js';
import { ms } from './lib/format.js';
import { summarize } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

interface Case {
  label: string;
  args: string[];
  env?: Record<string, string>;
}

/** Wall time of one run, in ms; a failing command stops the benchmark (its figure would lie). */
function timeOnce(c: Case): number {
  const pinned = pinnedCommand(LOAD_CORE, process.execPath, c.args);
  const start = process.hrtime.bigint();
  const res = spawnSync(pinned.command, pinned.args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...c.env },
    encoding: 'utf8',
  });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (res.status !== 0) throw new Error(`${c.label} exited ${res.status}: ${res.stderr.slice(0, 500)}`);
  return elapsed;
}

export default defineBenchmark({
  name: 'cli-start',
  description: 'start-to-exit time of annotary commands from dist/ (help, API commands, an admin command)',
  async run(opts: BenchOptions): Promise<Result> {
    const runs = Number(opts.extra.runs ?? 15);
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
      const rows: (string | number)[][] = [];
      const data: Record<string, unknown> = {};
      for (const c of cases) {
        timeOnce(c); // warm the file cache
        const s = summarize(Array.from({ length: runs }, () => timeOnce(c)));
        rows.push([c.label, ms(s.p50), ms(s.p90), ms(s.min), runs]);
        data[c.label] = s;
      }
      const p50 = (label: string) => (data[label] as { p50: number }).p50;
      return {
        table: { columns: ['command', 'p50', 'p90', 'min', 'runs'], rows },
        summary:
          `projects list ${ms(p50('annotary projects list'))} p50 ` +
          `(${ms(p50('annotary projects list') - p50("node -e '' (the floor)"))} above bare node)`,
        data,
        notes: [
          'keys create opens the store (migrations check, SQLite or PostgreSQL) and includes that work.',
          'API commands include one request to the local server.',
        ],
      };
    } finally {
      await server.stop();
    }
  },
});
