import type { Config } from './config.js';
import { type AppContext, createContext, type ContextOverrides } from './context.js';
import { buildApp, type App } from './http/app.js';
import { buildJobRegistry, WORKER_CONCURRENCY, WORKER_POLL_MS } from './job-handlers.js';
import { type Chore, JobWorker } from './jobs/worker.js';
import { pruneAuditRecords } from './services/audit/audit-retention.js';
import { bootstrap } from './services/identity/identity.service.js';
import { bootstrapOwnerPassword } from './services/identity/password-link.service.js';
import { foldGatheredWorkCounts } from './store/repositories/work-count.repository.js';
import { foldGatheredFacets } from './store/repositories/task-facet.repository.js';
import { upgradeStoredData } from './upgrades.js';

export interface RunningServer {
  app: App;
  ctx: AppContext;
  worker: JobWorker | undefined;
  /** The bootstrap key, when this start created it (printed once, never stored). */
  bootstrapKey: string | undefined;
  /** The one-time link to set the first owner's password, when this start made one. */
  ownerPasswordLink: string | undefined;
  url: string;
  stop(): Promise<void>;
}

/** How often the worker folds the count deltas PostgreSQL writers append (migrations 012 and 026). */
const FACET_FOLD_MS = 30_000;

/** How often the worker deletes audit records past their retention. */
const AUDIT_SWEEP_MS = 3_600_000;

/**
 * Store upkeep the worker's process does: deleting audit records past their retention and, on
 * PostgreSQL, folding kept-count deltas nobody read.
 */
function storeChores(ctx: AppContext): Chore[] {
  const audit: Chore[] =
    ctx.config.auditRetentionDays > 0
      ? [
          {
            name: 'audit retention',
            everyMs: AUDIT_SWEEP_MS,
            run: async () => {
              const deleted = await pruneAuditRecords(ctx.store.db, ctx.clock.now(), ctx.config.auditRetentionDays);
              if (deleted > 0) ctx.log.info({ deleted }, 'audit records past their retention deleted');
            },
          },
        ]
      : [];
  if (ctx.store.engine !== 'postgres') return audit;
  return [
    ...audit,
    {
      name: 'fold task and work counts',
      everyMs: FACET_FOLD_MS,
      run: async () => {
        await foldGatheredFacets(ctx.store.db);
        await foldGatheredWorkCounts(ctx.store.db);
      },
    },
  ];
}

export function startWorker(ctx: AppContext): JobWorker {
  const worker = new JobWorker({
    store: ctx.store,
    registry: buildJobRegistry(ctx),
    concurrency: WORKER_CONCURRENCY,
    pollIntervalMs: WORKER_POLL_MS,
    clock: ctx.clock,
    logger: ctx.log,
    retention: { keepDoneMs: ctx.config.doneJobRetentionHours * 3_600_000 },
    chores: storeChores(ctx),
  });
  worker.start();
  return worker;
}

/** Migrates, bootstraps, listens, and runs the job worker in the same process unless told not to. */
export async function startServer(config: Config, overrides: ContextOverrides = {}): Promise<RunningServer> {
  const ctx = await createContext(config, overrides);
  await upgradeStoredData(ctx);
  const boot = await bootstrap(ctx.store.db, ctx.clock, {
    apiKey: config.bootstrapApiKey,
    email: config.bootstrapEmail,
    plan: config.defaultPlan,
  });
  const ownerLink = await bootstrapOwnerPassword(ctx, boot !== undefined);
  const app = await buildApp(ctx);
  const worker = config.runWorker ? startWorker(ctx) : undefined;
  const address = await app.listen({ port: config.port, host: config.host });
  return {
    app,
    ctx,
    worker,
    bootstrapKey: boot?.apiKey,
    ownerPasswordLink: ownerLink?.url,
    url: address,
    async stop() {
      await app.close();
      await worker?.stop();
      await ctx.close();
    },
  };
}
