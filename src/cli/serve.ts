import type { AddressInfo } from 'node:net';
import { type Config, loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { type RunningServer, startServer, startWorker } from '../server.js';
import { markRunning } from '../services/backups/running-marker.js';

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

/**
 * Where people reach the server: ANNOTARY_PUBLIC_URL when it was set, otherwise the address
 * the socket really got (PORT=0 picks a free port; 0.0.0.0 and :: are reached on localhost).
 */
function reachableBase(config: Config, server: RunningServer): { listening: string; base: string } {
  const address = server.app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const listening = `http://${host}:${address.port}`;
  if (config.publicUrl !== `http://localhost:${config.port}`) return { listening, base: config.publicUrl };
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  return { listening, base: wildcard ? `http://localhost:${address.port}` : listening };
}

export async function serveCommand(): Promise<void> {
  const config = loadConfig();
  const server = await startServer(config);
  const { listening, base } = reachableBase(config, server);
  // Tells `annotary restore` this data folder is in use.
  const release = markRunning(config.dataDir, 'annotary serve');
  if (server.bootstrapKey) {
    // Printed once: only its hash is stored.
    process.stdout.write(
      [
        '',
        '  Annotary created its first organization and owner.',
        `  API key (shown once, keep it safe): ${server.bootstrapKey}`,
        `  Try: curl -H "apikey: ${server.bootstrapKey}" ${base}/v2/listProjects`,
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
  const { engine } = server.ctx.store;
  process.stdout.write(
    [
      `Annotary listening on ${listening} (store: ${engine}, deployment: ${config.deployment})`,
      `  API:  ${base}/v2`,
      `  Docs: ${base}/docs`,
    ].join('\n') + '\n',
  );
  onSignals(async () => {
    await server.stop();
    release();
  });
}

export async function workerCommand(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const worker = startWorker(ctx);
  const release = markRunning(config.dataDir, 'annotary worker');
  process.stdout.write(`Annotary worker ${worker.id} running (store: ${ctx.store.engine})\n`);
  onSignals(async () => {
    await worker.stop();
    await ctx.close();
    release();
  });
}
