import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUndiciSender } from '../../src/adapters/webhook/undici-sender.js';
import { JOB_KINDS, JobRegistry, type JobPayloads } from '../../src/jobs/registry.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { pluginCallHandler } from '../../src/services/plugins/plugin-call.js';
import type { TestApp } from './app.js';

/**
 * A real plugin on 127.0.0.1 (port 0), written the way a user's would be: it checks the Secret
 * header, answers the call at once, and then does its work and calls the Annotary API back over
 * HTTP with its own API key (as a model service would). What it does per call is the test's
 * `behave` function; every call is recorded, and every failed call-back too.
 */

export interface PluginCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    session: string;
    projectId: string;
    taskId: string;
    orgId: string;
    stage: string;
    configJSON: string;
    categorySchema: unknown;
    [extra: string]: unknown;
  };
}

export interface PluginApi {
  (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

/** What the plugin answers the call with, and what it does after (may be async). */
export type Behave = (call: PluginCall, api: PluginApi) => { status: number; after?: () => Promise<void> } | 'hang';

export interface PluginServer {
  url: string;
  calls: PluginCall[];
  /** Call-backs that did not answer 2xx, or threw: a test expects none. */
  problems: string[];
  behave: Behave;
  close(): Promise<void>;
}

export async function startPluginServer(apiUrl: string, apiKey: string, behave: Behave): Promise<PluginServer> {
  const api: PluginApi = async (method, path, body) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { apikey: apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const state: PluginServer = { url: '', calls: [], problems: [], behave, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call: PluginCall = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as PluginCall['body'],
      };
      state.calls.push(call);
      const plan = state.behave(call, api);
      if (plan === 'hang') return; // never answered: the caller's timeout must end it
      res.writeHead(plan.status, { 'content-type': 'application/json' }).end('{}');
      plan.after?.().catch((err: unknown) => state.problems.push(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** Calls back the API and records anything but a 2xx as a problem. */
export async function expectOk(server: PluginServer, api: PluginApi, method: string, path: string, body?: unknown) {
  const res = await api(method, path, body);
  if (res.status < 200 || res.status >= 300)
    server.problems.push(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res;
}

/**
 * A worker of the test app's store running plugin calls only (other kinds stay queued), with a
 * short timeout and backoff so failures show within a second or two. Private destinations are
 * allowed: the plugin listens on 127.0.0.1.
 */
export function startPluginWorker(t: TestApp, timeoutMs: number): JobWorker<Pick<JobPayloads, 'plugin.call'>> {
  const sender = createUndiciSender({ allowPrivate: true });
  const registry = new JobRegistry<Pick<JobPayloads, 'plugin.call'>>(
    { 'plugin.call': JOB_KINDS['plugin.call'] },
    { backoffBaseMs: 10 },
  ).handle('plugin.call', pluginCallHandler(t.ctx, sender, { timeoutMs }));
  const worker = new JobWorker({ store: t.ctx.store, registry, pollIntervalMs: 20, clock: t.ctx.clock });
  worker.start();
  return worker;
}
