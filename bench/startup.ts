/**
 * Start-up of the built server (`node dist/cli/index.js serve`, SQLite): from spawning the
 * process to its first 200 on /healthz, against a bare Fastify server (the baseline) spawned the
 * same way, alternated round by round. Each Annotary round starts twice: once on an empty data
 * folder (migrations and the first owner included) and once again on that folder (a restart).
 * For each start: wall time, the server's own CPU time at that moment (user + sys of every
 * thread, /proc/<pid>/stat, 10 ms ticks) and its RSS; after the last round each side idles
 * `--settle` seconds and its RSS is read again (idle RSS).
 *
 * `--dist <folder>` measures another build (e.g. a checkout of the commit before a change, built
 * with tsc, beside a node_modules): its <folder>/cli/index.js is spawned instead of dist/'s.
 *
 *   npm run bench -- startup [--rounds 5] [--settle 30] [--dist dist]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_SECRET_KEY, buildOnce, REPO_ROOT } from './lib/annotary.js';
import { pinnedCommand, SERVER_CORE } from './lib/cpu.js';
import { mib, ms } from './lib/format.js';
import { readMemory } from './lib/memory.js';
import { medianBy, roundsOption, spreadOf } from './lib/rounds.js';
import { freePort } from './lib/server-process.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

/** The baseline: Fastify with one route, as plain JavaScript (no loader), from the repository's node_modules. */
const BARE_FASTIFY = [
  "import Fastify from 'fastify';",
  'const app = Fastify();',
  "app.get('/healthz', async () => ({ status: 'success' }));",
  "await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });",
].join('\n');

interface Start {
  wallMs: number;
  cpuMs: number;
  rssBytes: number;
}

interface Side {
  label: string;
  args: string[];
  env: Record<string, string>;
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** user + sys of the whole process (every thread), ms. */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Spawns one server, polls /healthz every 5 ms until a 200, reads its CPU time and RSS at once,
 * then (when asked) lets it idle and reads its RSS again. Always stops it.
 */
async function startOnce(side: Side, settleSec = 0): Promise<Start & { idleRssBytes?: number }> {
  const port = await freePort();
  const { command, args } = pinnedCommand(SERVER_CORE, process.execPath, side.args);
  const t0 = performance.now();
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...side.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4096)));
  try {
    const pid = child.pid;
    if (pid === undefined) throw new Error(`${side.label}: could not spawn`);
    const deadline = t0 + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${side.label} exited before answering:\n${stderr}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (performance.now() > deadline) throw new Error(`${side.label} did not answer /healthz:\n${stderr}`);
      await sleep(5);
    }
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsOf(pid);
    const rssBytes = readMemory(pid)?.rssBytes ?? Number.NaN;
    if (settleSec <= 0) return { wallMs, cpuMs, rssBytes };
    await sleep(settleSec * 1000);
    return { wallMs, cpuMs, rssBytes, idleRssBytes: readMemory(pid)?.rssBytes ?? Number.NaN };
  } finally {
    await stopChild(child);
  }
}

export default defineBenchmark({
  name: 'startup',
  description: 'spawn to first 200 on /healthz and idle RSS of the built server (SQLite) against bare Fastify',
  async run(opts: BenchOptions): Promise<Result> {
    if (opts.engine !== 'sqlite') throw new Error('startup measures the SQLite default store only');
    const rounds = roundsOption(opts.extra, 5);
    const settleSec = Number(opts.extra.settle ?? 30);
    const dist = opts.extra.dist;
    if (dist === undefined) await buildOnce();
    const entry = path.resolve(REPO_ROOT, dist ?? 'dist', 'cli', 'index.js');
    const bare: Side = { label: 'bare Fastify', args: ['--input-type=module', '-e', BARE_FASTIFY], env: {} };
    // The server's code cache in a folder of this run, on every Node version (Node 20:
    // src/cli/code-cache.ts; 22.8 and later: Node's module compile cache, which would otherwise
    // use the system's temporary folder and carry over from earlier runs): the warm-up start
    // below writes it, as any earlier start of an installed server has; the "no code cache" row
    // starts with both turned off, as a server's very first start after an install or upgrade.
    const codeCache = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-startup-cache-'));
    const annotary = (dataDir: string, cache = true): Side => ({
      label: 'annotary serve',
      args: [entry, 'serve'],
      env: {
        ANNOTARY_DATA_DIR: dataDir,
        ANNOTARY_SECRET_KEY: BENCH_SECRET_KEY,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        ANNOTARY_CODE_CACHE_DIR: codeCache,
        NODE_COMPILE_CACHE: codeCache,
        ...(cache ? {} : { NODE_DISABLE_COMPILE_CACHE: '1' }),
      },
    });
    // Nothing of the environment may switch engines or add Redis: the default store is measured.
    for (const name of ['DATABASE_URL', 'REDIS_URL']) delete process.env[name];

    await startOnce(bare); // warms the file cache for both sides
    const warm = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-startup-'));
    // Node 20 writes the code cache a second after the start, Node 22.8+ as the process ends.
    await startOnce(annotary(warm), 3);
    fs.rmSync(warm, { recursive: true, force: true });

    const runs: Record<'bare' | 'first' | 'restart' | 'uncached', (Start & { idleRssBytes?: number })[]> = {
      bare: [],
      first: [],
      restart: [],
      uncached: [],
    };
    for (let r = 0; r < rounds; r++) {
      const last = r === rounds - 1;
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-startup-'));
      try {
        runs.bare.push(await startOnce(bare, last ? settleSec : 0));
        runs.first.push(await startOnce(annotary(dataDir)));
        runs.restart.push(await startOnce(annotary(dataDir), last ? settleSec : 0));
        runs.uncached.push(await startOnce(annotary(dataDir, false)));
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
    fs.rmSync(codeCache, { recursive: true, force: true });

    const median = (list: Start[], key: (s: Start) => number) => key(medianBy(list, key));
    const row = (label: string, list: (Start & { idleRssBytes?: number })[]) => {
      const idle = list.at(-1)?.idleRssBytes;
      return [
        label,
        ms(median(list, (s) => s.wallMs)),
        spreadOf(
          list.map((s) => s.wallMs),
          ms,
        ),
        ms(median(list, (s) => s.cpuMs)),
        spreadOf(
          list.map((s) => s.cpuMs),
          ms,
        ),
        mib(median(list, (s) => s.rssBytes)),
        idle === undefined ? '-' : mib(idle),
      ];
    };
    const wall = (list: Start[]) => median(list, (s) => s.wallMs);
    const cpu = (list: Start[]) => median(list, (s) => s.cpuMs);
    const idleRss = runs.restart.at(-1)?.idleRssBytes ?? Number.NaN;
    return {
      table: {
        columns: [
          'server',
          'wall p50',
          'wall spread',
          'CPU p50',
          'CPU spread',
          'RSS at 200',
          `RSS after ${settleSec} s idle`,
        ],
        rows: [
          row('bare Fastify (baseline)', runs.bare),
          row('annotary serve, empty data folder', runs.first),
          row('annotary serve, restart', runs.restart),
          row('annotary serve, restart without the code cache', runs.uncached),
        ],
      },
      summary:
        `restart answers /healthz in ${ms(wall(runs.restart))} wall, ${ms(cpu(runs.restart))} CPU ` +
        `(${(cpu(runs.restart) / cpu(runs.bare)).toFixed(1)}x bare Fastify's CPU; ` +
        `${ms(wall(runs.uncached))} wall without the code cache); idle RSS ${mib(idleRss)}`,
      data: { rounds, settleSec, runs },
      notes: [
        `${rounds} alternated rounds (bare, first start, restart, restart without the code cache); medians and min-max of the rounds.`,
        'Every Annotary start but the last row reads the code cache a warm-up start wrote (an older build given by --dist may have none).',
        'CPU = user + sys of the server process (every thread) when its first 200 arrived, in 10 ms ticks.',
        'Wall time moves with the machine load; the CPU time much less so.',
      ],
    };
  },
});
