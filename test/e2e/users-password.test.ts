import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { childDatabaseUrl, runCli } from '../helpers/server-process.js';
import { asBrowser, OWNER_PASSWORD, signInWith } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('annotary users password on %s', (engine) => {
  let t: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD } });
    env = {
      ANNOTARY_DATA_DIR: t.store.dataDir,
      ANNOTARY_PUBLIC_URL: 'http://annotary.test',
      ...(t.store.databaseUrl && t.store.pgSchema
        ? { DATABASE_URL: childDatabaseUrl(t.store.databaseUrl, t.store.pgSchema) }
        : {}),
    };
  });
  afterAll(() => t.close());

  it('prints a one-time reset link; using it sets the password and ends the old sessions', async () => {
    const old = await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
    const res = await runCli(['users', 'password', '--email', 'ADMIN@annotary.local'], env);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { email: string; link: string; expiresAt: string };
    expect(out.email).toBe(t.ownerEmail);
    expect(out.link).toMatch(/^http:\/\/annotary\.test\/password\/[\w-]{43}$/);
    const token = out.link.split('/').pop() ?? '';
    const about = await t.call('GET', `/v2/password-links/${token}`, { key: null });
    expect(about.json().data).toMatchObject({ purpose: 'reset', email: t.ownerEmail, organizationRole: 'owner' });
    // Until the link is used, nothing changed.
    expect((await asBrowser(t, old, 'GET', '/v2/session')).statusCode).toBe(200);
    const set = await t.call('POST', `/v2/password-links/${token}`, {
      key: null,
      body: { password: 'a brand new one' },
    });
    expect(set.statusCode).toBe(200);
    expect((await asBrowser(t, old, 'GET', '/v2/session')).statusCode).toBe(401);
    const wrong = await t.call('POST', '/v2/session', {
      key: null,
      body: { email: t.ownerEmail, password: OWNER_PASSWORD },
    });
    expect(wrong.statusCode).toBe(401);
    await signInWith(t, { email: t.ownerEmail, password: 'a brand new one' });
  });

  it('sets the password read from stdin', async () => {
    const res = await runCli(['users', 'password', '--email', t.ownerEmail, '--stdin'], env, `${OWNER_PASSWORD}\n`);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toContain(OWNER_PASSWORD);
    await signInWith(t, { email: t.ownerEmail, password: OWNER_PASSWORD });
  });

  it('refuses a short password and an unknown e-mail with a message, no stack', async () => {
    const short = await runCli(['users', 'password', '--email', t.ownerEmail, '--stdin'], env, 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password: must be at least 10 characters');
    const nobody = await runCli(['users', 'password', '--email', 'nobody@example.com'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('nobody@example.com not found');
    expect(nobody.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
