/**
 * A worker process that claims `test.hang` jobs and never finishes them, so a test can
 * SIGKILL it mid-job and watch another worker take the job over once the lease lapses.
 * Run: node --import tsx test/helpers/job-worker-child.ts '<json ChildConfig>'
 * Talks to the parent through JSON lines on stdout: {event: 'started'} and
 * {event: 'claimed', jobId, attempt}.
 */
import { openStore } from '../../src/store/db.js';
import { JobRegistry, JobWorker } from '../../src/jobs/index.js';

export interface ChildConfig {
  databaseUrl?: string;
  pgSchema?: string;
  sqliteFile?: string;
  workerId: string;
  leaseMs: number;
}

export interface HangPayloads {
  'test.hang': { note: string };
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const say = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

const store = await openStore(
  config.databaseUrl
    ? { databaseUrl: config.databaseUrl, ...(config.pgSchema ? { pgSchema: config.pgSchema } : {}), poolSize: 2 }
    : { sqliteFile: config.sqliteFile ?? '' },
);

const registry = new JobRegistry<HangPayloads>({ 'test.hang': { leaseMs: config.leaseMs, maxAttempts: 3 } });
registry.handle('test.hang', async (job, ctx) => {
  say({ event: 'claimed', jobId: job.id, attempt: job.attempt });
  // Hangs until killed; the worker keeps renewing the lease meanwhile.
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
});

const worker = new JobWorker({ store, registry, workerId: config.workerId, pollIntervalMs: 50 });
worker.start();
say({ event: 'started' });
