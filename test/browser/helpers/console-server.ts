import net from 'node:net';
import { startWorker } from '../../../src/server.js';
import type { JobWorker } from '../../../src/jobs/worker.js';
import type { Engine } from '../../../src/store/db.js';
import { makeTestApp, type TestApp, type TestAppOptions } from '../../helpers/app.js';

export interface ConsoleServer extends TestApp {
  /** http://127.0.0.1:<port>, the address the browser opens. */
  url: string;
  worker: JobWorker | undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The app on a real socket for a browser: the same test store and bootstrap owner as
 * makeTestApp, its public URL the address it listens on (signed file URLs must reach it), and
 * the job worker when the test needs webhooks or plugins to run.
 */
export async function startConsoleServer(
  engine: Engine,
  opts: TestAppOptions & { worker?: boolean } = {},
): Promise<ConsoleServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await makeTestApp(engine, { ...opts, env: { ANNOTARY_PUBLIC_URL: url, ...opts.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const worker = opts.worker ? startWorker(t.ctx) : undefined;
  return {
    ...t,
    url,
    worker,
    async close() {
      await worker?.stop();
      await t.close();
    },
  };
}
