import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config.js';
import { createContext } from '../context.js';
import { startServer, startWorker } from '../server.js';
import { markRunning } from '../services/backups/running-marker.js';
import { upgradeStoredData } from '../upgrades.js';
import { startBanner } from './start-banner.js';

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
  // Tells `annotary restore` this data folder is in use.
  const release = markRunning(config.dataDir, 'annotary serve');
  process.stdout.write(
    startBanner({
      config,
      address: server.app.server.address() as AddressInfo,
      engine: server.ctx.store.engine,
      bootstrapKey: server.bootstrapKey,
      ownerPasswordLink: server.ownerPasswordLink,
    }),
  );
  onSignals(async () => {
    await server.stop();
    release();
  });
}

export async function workerCommand(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  await upgradeStoredData(ctx);
  const worker = startWorker(ctx);
  const release = markRunning(config.dataDir, 'annotary worker');
  process.stdout.write(`Annotary worker ${worker.id} running (store: ${ctx.store.engine})\n`);
  onSignals(async () => {
    await worker.stop();
    await ctx.close();
    release();
  });
}
