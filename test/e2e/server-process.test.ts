import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childDatabaseUrl, runCli, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';

const running: ServerProcess[] = [];
const stores: TestStore[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.stop('SIGKILL')));
  await Promise.all(stores.map((s) => s.cleanup()));
});

async function get(url: string, key?: string) {
  const res = await fetch(url, { headers: key ? { apikey: key } : {} });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
}

describe('the server as a newcomer starts it', () => {
  it('starts on an empty data folder, prints the bootstrap key once, and serves the API', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-serve-'));
    const first = await startServerProcess({ ANNOTARY_DATA_DIR: dataDir });
    running.push(first);
    const key = /API key \(shown once, keep it safe\): (\S+)/.exec(first.stdout())?.[1];
    expect(key).toMatch(/^ak_/);
    // No ANNOTARY_BOOTSTRAP_PASSWORD: the first start prints a one-time link to set the owner's.
    // On the address the server listens on (127.0.0.1 here), where the console will be opened.
    expect(first.stdout()).toMatch(
      /one-time link, valid 24 h\):\n {4}http:\/\/127\.0\.0\.1:\d+\/password\/[\w-]{43}\n/,
    );
    expect((await get(`${first.url}/healthz`)).body.data).toEqual({ store: 'sqlite', deployment: 'eu' });
    // PORT=0: the banner names the port the socket really got, and where the docs are.
    const port = new URL(first.url).port;
    expect(port).not.toBe('0');
    expect(first.stdout()).toContain(`Docs: http://127.0.0.1:${port}/docs`);
    expect(first.stdout()).toContain(`${first.url}/v2/listProjects`);
    expect((await fetch(`${first.url}/docs/`)).status).toBe(200);
    expect((await get(`${first.url}/v2/listProjects`, key)).status).toBe(200);
    expect((await get(`${first.url}/v2/listProjects`, 'ak_wrong')).status).toBe(401);
    expect(await first.stop()).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'annotary.db'))).toBe(true);
    expect(fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);

    // A second start on the same folder prints no key, and the first key still works.
    const second = await startServerProcess({ ANNOTARY_DATA_DIR: dataDir, ANNOTARY_DEPLOYMENT: 'us' });
    running.push(second);
    expect(second.stdout()).not.toContain('API key');
    expect(second.stdout()).toContain('deployment: us');
    expect((await get(`${second.url}/healthz`)).body.data).toEqual({ store: 'sqlite', deployment: 'us' });
    const doc = (await (await fetch(`${second.url}/v2/openapi.json`)).json()) as { servers: { description: string }[] };
    expect(doc.servers[0]?.description).toContain('us deployment');
    expect(second.stdout()).not.toContain('/password/');
    expect((await get(`${second.url}/v2/listProjects`, key)).status).toBe(200);
    await second.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops with a message naming a bad variable', async () => {
    const res = await runCli(['serve'], { PORT: 'eighty', ANNOTARY_DATA_DIR: os.tmpdir() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('PORT:');
    expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe.each(ENGINES)('bootstrap and the CLI on %s', (engine) => {
  it('fixes the bootstrap key and e-mail from the environment, and the CLI manages users, keys and plans', async () => {
    const store = await makeStore(engine);
    stores.push(store);
    const env: Record<string, string> = {
      ANNOTARY_DATA_DIR: store.dataDir,
      ANNOTARY_BOOTSTRAP_API_KEY: 'ak_fixed_key_for_automation',
      ANNOTARY_BOOTSTRAP_EMAIL: 'ops@example.com',
      ...(store.databaseUrl && store.pgSchema
        ? { DATABASE_URL: childDatabaseUrl(store.databaseUrl, store.pgSchema) }
        : {}),
    };
    const server = await startServerProcess(env);
    running.push(server);
    expect(server.stdout()).not.toContain('API key');
    const projects = await get(`${server.url}/v2/listProjects`, 'ak_fixed_key_for_automation');
    expect(projects.status).toBe(200);

    const user = await runCli(['users', 'create', '--email', 'New.Person@example.com', '--key'], env);
    expect(user.code).toBe(0);
    const made = JSON.parse(user.stdout) as { user: { email: string }; apiKey: string };
    expect(made.user.email).toBe('new.person@example.com');
    expect((await get(`${server.url}/v2/listProjects`, made.apiKey)).status).toBe(200);

    const rotated = JSON.parse((await runCli(['keys', 'create', '--email', 'new.person@example.com'], env)).stdout) as {
      apiKey: string;
    };
    expect((await get(`${server.url}/v2/listProjects`, made.apiKey)).status).toBe(401);
    expect((await get(`${server.url}/v2/listProjects`, rotated.apiKey)).status).toBe(200);

    const orgs = JSON.parse((await runCli(['orgs', 'list'], env)).stdout) as { id: string }[];
    const orgId = orgs[0]?.id ?? '';
    // Each command's change is in the audit log, made by the command line, without the key.
    const audit = await fetch(`${server.url}/v2/organization/${orgId}/audit`, {
      headers: { apikey: 'ak_fixed_key_for_automation' },
    });
    const records = ((await audit.json()) as { data: { records: Record<string, unknown>[] } }).data.records;
    // Each CLI command is its own process: records of two processes in one second sort by the
    // process part of their ids, so only the set is fixed across commands.
    expect(records.map((r) => [r.operation, r.actor, r.userId]).sort()).toEqual([
      ['apikey.renew', 'cli', null],
      ['apikey.renew', 'cli', null],
      ['member.add', 'cli', null],
    ]);
    expect(JSON.stringify(records)).not.toContain(rotated.apiKey);
    expect((await runCli(['orgs', 'plan', orgId, 'enterprise', '--limit', '777'], env)).code).toBe(0);
    const res = await fetch(`${server.url}/v2/listProjects`, { headers: { apikey: rotated.apiKey } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('777');
    const bad = await runCli(['orgs', 'plan', orgId, 'gold'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('plan');
    await server.stop();
  });
});
