/**
 * The benchmark runner. Benchmarks print figures; they are never pass/fail tests (see
 * docs/benchmarks.md for why and for the recorded figures).
 *
 *   npm run bench -- list
 *   npm run bench -- <name> [--engine sqlite|postgres|both] [--duration 10] [--warmup 2] [--profile]
 *   npm run bench -- all [same options]
 *
 * Each run prints the machine, a table of figures and a one-line summary, and writes
 * bench/results/<name>-<engine>.json. Flags a benchmark does not know reach it in opts.extra.
 */
import { LOAD_CORE, pinSelf } from './lib/cpu.js';
import { markdownTable, renderTable } from './lib/format.js';
import { acquireBenchLock } from './lib/lock.js';
import { describeMachine, machineLine, waitForQuiet } from './lib/machine.js';
import { loadBenchmarks } from './lib/registry.js';
import { writeResult } from './lib/results.js';
import { type Benchmark, type BenchOptions, ENGINES, type Engine } from './lib/types.js';

const USAGE = `usage: npm run bench -- <name|list|all> [options]

  --engine sqlite|postgres|both   store of the Annotary server under test (default sqlite)
  --duration <s>                  measured seconds per scenario (default 10)
  --warmup <s>                    unmeasured seconds before each scenario (default 2)
  --profile                       run servers under --cpu-prof and print where the time went
  --markdown                      also print the table as Markdown, for docs/benchmarks.md
  --wait-quiet <s>                first wait up to s seconds for the machine to be idle (shared machines)
  --<flag> <value>                passed to the benchmark as opts.extra.<flag>`;

const BOOLEAN_FLAGS = new Set(['profile', 'markdown', 'help']);

interface Args {
  target: string | undefined;
  flags: Record<string, string>;
}

function parseArgs(argv: string[]): Args {
  const flags: Record<string, string> = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = arg.slice(2, eq > 0 ? eq : undefined);
    if (eq > 0) flags[key] = arg.slice(eq + 1);
    else if (BOOLEAN_FLAGS.has(key)) flags[key] = 'true';
    else {
      const value = argv[++i];
      if (value === undefined) throw new Error(`--${key} needs a value`);
      flags[key] = value;
    }
  }
  if (positional.length > 1) throw new Error(`one benchmark name (or list, all) expected, got ${positional.join(' ')}`);
  return { target: positional[0], flags };
}

function seconds(flags: Record<string, string>, key: string, fallback: number, min: number): number {
  const raw = flags[key];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${key} must be a number of seconds >= ${min}, got ${raw}`);
  return n;
}

function engines(raw: string | undefined): Engine[] {
  if (raw === undefined) return ['sqlite'];
  if (raw === 'both') return [...ENGINES];
  const hit = ENGINES.find((e) => e === raw);
  if (!hit) throw new Error(`--engine must be sqlite, postgres or both, got ${raw}`);
  return [hit];
}

async function runOne(b: Benchmark, opts: BenchOptions, markdown: boolean, quietSec: number): Promise<boolean> {
  if (quietSec > 0) {
    const busy = await waitForQuiet(quietSec);
    if (busy !== undefined) process.stdout.write(`\nmachine ${Math.round(busy * 100)} % busy before the run\n`);
  }
  const machine = describeMachine();
  process.stdout.write(`\n== ${b.name} (${opts.engine}) ==\n${b.description}\n`);
  process.stdout.write(`machine: ${machineLine(machine)}\npinning: ${machine.pinning}\n`);
  if (machine.loadAverage > 0.5) {
    process.stdout.write(
      `warning: load average ${machine.loadAverage} at start: something else is busy, figures may be low\n`,
    );
  }
  process.stdout.write(`duration ${opts.durationSec} s after ${opts.warmupSec} s warm-up per scenario\n\n`);
  try {
    const result = await b.run(opts);
    process.stdout.write(`${renderTable(result.table)}\n\n${result.summary}\n`);
    for (const note of result.notes ?? []) process.stdout.write(`${note}\n`);
    if (markdown) process.stdout.write(`\n${markdownTable(result.table)}\n`);
    const file = writeResult({
      benchmark: b.name,
      engine: opts.engine,
      machine,
      options: { ...opts, extra: { ...opts.extra } },
      ...result,
    });
    process.stdout.write(`result: ${file}\n`);
    return true;
  } catch (err) {
    process.stderr.write(
      `${b.name} (${opts.engine}) failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return false;
  }
}

async function main(): Promise<number> {
  const { target, flags } = parseArgs(process.argv.slice(2));
  if (!target || flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return target ? 0 : 2;
  }
  const benchmarks = await loadBenchmarks();
  if (target === 'list') {
    const width = Math.max(...benchmarks.map((b) => b.name.length));
    for (const b of benchmarks) process.stdout.write(`${b.name.padEnd(width)}  ${b.description}\n`);
    return 0;
  }
  const chosen = target === 'all' ? benchmarks : benchmarks.filter((b) => b.name === target);
  if (chosen.length === 0) {
    process.stderr.write(`no benchmark named ${target}; try: npm run bench -- list\n`);
    return 2;
  }
  const known = new Set(['engine', 'duration', 'warmup', 'profile', 'markdown', 'help', 'wait-quiet']);
  const quietSec = seconds(flags, 'wait-quiet', 0, 0);
  const base = {
    durationSec: seconds(flags, 'duration', 10, 1),
    warmupSec: seconds(flags, 'warmup', 2, 0),
    profile: flags.profile === 'true',
    extra: Object.fromEntries(Object.entries(flags).filter(([k]) => !known.has(k))),
  };
  const chosenEngines = engines(flags.engine);
  await acquireBenchLock((holder) =>
    process.stdout.write(`waiting for another benchmark run to finish (pid ${holder.pid}: ${holder.command})\n`),
  );
  // The load generator (autocannon, in this process) gets its own core; servers get the other.
  pinSelf(LOAD_CORE);
  let ok = true;
  for (const b of chosen) {
    for (const engine of chosenEngines)
      ok = (await runOne(b, { ...base, engine }, flags.markdown === 'true', quietSec)) && ok;
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exit(2);
  },
);
