import { loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { startServer, startWorker } from '../server.js';

function onSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal} received, shutting down\n`);
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

export async function serveCommand(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config);
  if (server.bootstrapKey) {
    // Printed once: only its hash is stored.
    process.stdout.write(
      [
        '',
        '  Annotary created its first organization and owner.',
        `  API key (shown once, keep it safe): ${server.bootstrapKey}`,
        `  Try: curl -H "apikey: ${server.bootstrapKey}" ${config.publicUrl}/v2/listProjects`,
        '',
      ].join('\n') + '\n',
    );
  }
  if (server.ownerPasswordLink) {
    // One-time: only its hash is stored, and it stops working once used or after a day.
    process.stdout.write(
      `\n  Set the owner's console password (one-time link, valid 24 h): ${server.ownerPasswordLink}\n\n`,
    );
  }
  process.stdout.write(`Annotary listening on ${server.url} (store: ${server.ctx.store.engine})\n`);
  onSignals(() => server.stop());
}

export async function workerCommand(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const worker = startWorker(ctx);
  process.stdout.write(`Annotary worker ${worker.id} running (store: ${ctx.store.engine})\n`);
  onSignals(async () => {
    await worker.stop();
    await ctx.close();
  });
}
