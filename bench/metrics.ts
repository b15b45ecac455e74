/**
 * GET /v2/{projectId}/overview/{metric} for each of the six metrics on a project of 1,000,000
 * labelled tasks (the data of the export benchmark: answers, one or two history entries each,
 * metadata with sizes, consensus scores on one task in five) on a real Annotary server process.
 * Each metric is asked `--rounds` times (default 3) in a row; the table shows the first answer
 * (cold: nothing of it cached by the database yet) and the median of the rounds.
 *
 *   npm run bench -- metrics [--engine sqlite|postgres|both] [--tasks 1000000] [--rounds 3]
 */
import { METRICS } from '../src/services/metrics/metrics.service.js';
import { startAnnotary } from './lib/annotary.js';
import { num } from './lib/format.js';
import { describeOtherCpu, type OtherCpu, watchOtherCpu } from './lib/interference.js';
import { labelledProject, taskCounts } from './lib/labelled-project.js';
import { timed } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

interface MetricFigures {
  metric: string;
  firstMs: number;
  medianMs: number;
  rounds: number[];
  bytes: number;
  /** Cores' worth of CPU other processes used while this metric was asked (PostgreSQL included). */
  otherCpu: OtherCpu | undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

async function run(opts: BenchOptions): Promise<Result> {
  const [tasks = 1_000_000] = taskCounts(opts.extra.tasks, [1_000_000]);
  const rounds = Number(opts.extra.rounds ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1');
  const server = await startAnnotary({ engine: opts.engine });
  try {
    const { projectId, seedSeconds } = await labelledProject(server, tasks);
    process.stdout.write(`  ${num(tasks)} tasks seeded in ${seedSeconds.toFixed(1)} s\n`);
    const figures: MetricFigures[] = [];
    for (const metric of METRICS) {
      const times: number[] = [];
      let bytes = 0;
      const others = watchOtherCpu([server.process.pid, process.pid]);
      for (let r = 0; r < rounds; r++) {
        const { ms } = await timed(async () => {
          const res = await fetch(`${server.url}/v2/${projectId}/overview/${metric}`, {
            headers: { apikey: server.apiKey },
          }).catch((err: unknown) => {
            throw new Error(`${metric}: ${String(err)}\nserver output:\n${server.process.output()}`);
          });
          const text = await res.text();
          if (!res.ok) throw new Error(`${metric} answered ${res.status}: ${text.slice(0, 300)}`);
          bytes = text.length;
        });
        times.push(ms);
      }
      const otherCpu = others.stop();
      figures.push({ metric, firstMs: times[0] as number, medianMs: median(times), rounds: times, bytes, otherCpu });
    }
    const slowest = figures.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    return {
      table: {
        columns: ['metric', 'first', `median of ${rounds}`, 'answer bytes', 'other CPU'],
        rows: figures.map((f) => [
          f.metric,
          `${Math.round(f.firstMs)} ms`,
          `${Math.round(f.medianMs)} ms`,
          f.bytes,
          describeOtherCpu(f.otherCpu),
        ]),
      },
      summary:
        `overview metrics on ${opts.engine}, ${num(tasks)} tasks: slowest ${slowest.metric} ` +
        `${Math.round(slowest.medianMs)} ms (median of ${rounds})`,
      notes: [
        'each figure is one HTTP request through the server, key check and JSON included',
        'other CPU = cores used by other processes while the metric was asked (PostgreSQL backends included)',
      ],
      data: { tasks, seedSeconds, rounds, figures },
    };
  } finally {
    await server.stop();
  }
}

export default defineBenchmark({
  name: 'metrics',
  description:
    'GET /v2/{projectId}/overview/{metric}, all six metrics, on 1,000,000 labelled tasks (--tasks to change)',
  run,
});
