import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBanner } from '../../src/cli/start-banner.js';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { ENGINES, makeStore, type TestStore } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';

/*
 * A first start as the README has it: no ANNOTARY_PUBLIC_URL, HOST left at 0.0.0.0. The owner
 * opens the console on http://127.0.0.1:<port> (not localhost), sets the password through the
 * banner's link for that address and stays signed in there; the invite link the console then
 * shows starts with the same address, and the invitee who opens it is signed in on it too.
 */

const engine = ENGINES[0] ?? 'sqlite';

describe('links use the address the console was opened on', () => {
  let store: TestStore;
  let server: RunningServer;
  let browser: Browser;
  let banner = '';
  let origin = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    store = await makeStore(engine);
    // Only these variables: the test's own environment may hold an ANNOTARY_PUBLIC_URL.
    const config = loadConfig({ ANNOTARY_DATA_DIR: store.dataDir, HOST: '0.0.0.0', PORT: '0', LOG_LEVEL: 'silent' });
    server = await startServer(config, { store, migrated: true });
    const address = server.app.server.address() as AddressInfo;
    origin = `http://127.0.0.1:${address.port}`;
    banner = startBanner({
      config,
      address,
      engine: store.engine,
      bootstrapKey: server.bootstrapKey,
      ownerPasswordLink: server.ownerPasswordLink,
    });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
    await store?.cleanup();
  });

  it('the banner offers the link on 127.0.0.1 and warns that links outside a request say localhost', () => {
    expect(banner).toContain(`    ${origin}/password/`);
    expect(banner).toContain(`    http://localhost:${origin.split(':').pop()}/password/`);
    expect(banner).toMatch(/Warning: ANNOTARY_PUBLIC_URL is not set while the server listens on 0\.0\.0\.0/);
  });

  it('sets the password through it, stays signed in, and the invite link says 127.0.0.1 too', async () => {
    const link = banner.split('\n').find((l) => l.trim().startsWith(`${origin}/password/`));
    expect(link).toBeDefined();
    const ownerContext = await newContext(browser, origin);
    contexts.push(ownerContext);
    const owner = await ownerContext.newPage();
    const errors = pageErrors(owner);
    await owner.goto((link ?? '').trim());
    await owner.getByRole('heading', { name: 'Set your password' }).waitFor();
    await owner.getByLabel('New password').fill('owner password 1');
    await owner.getByLabel('Repeat the password').fill('owner password 1');
    await owner.getByRole('button', { name: 'Set password and sign in' }).click();
    await owner.waitForURL((url) => !url.pathname.startsWith('/password/'));
    // The session cookie belongs to the address the console is used at: a reload stays signed in.
    await owner.goto('/org');
    await owner.getByRole('heading', { name: 'Invite people' }).waitFor();
    expect(new URL(owner.url()).pathname).toBe('/org');

    await owner.getByLabel('E-mails to invite').fill('tess@example.com');
    await owner.getByRole('button', { name: 'Invite', exact: true }).click();
    const field = owner.getByLabel('Invite link for tess@example.com');
    await field.waitFor();
    const invite = await field.inputValue();
    expect(invite.startsWith(`${origin}/invite/`)).toBe(true);
    await screenshot(owner, 'links-invite-on-127');

    const inviteeContext = await newContext(browser, origin);
    contexts.push(inviteeContext);
    const invitee = await inviteeContext.newPage();
    await invitee.goto(invite);
    await invitee.getByLabel('New password').fill('tess password 1');
    await invitee.getByLabel('Repeat the password').fill('tess password 1');
    await invitee.getByRole('button', { name: 'Join and sign in' }).click();
    await invitee.waitForURL((url) => !url.pathname.startsWith('/invite/'));
    expect(new URL(invitee.url()).origin).toBe(origin);
    // Signed in on the address the link named: the cookie goes with the console's requests.
    const session = await invitee.request.get('/v2/session');
    expect(session.status()).toBe(200);
    expect(((await session.json()) as { data: { user: { email: string } } }).data.user.email).toBe('tess@example.com');
    const ownerSession = await owner.request.get('/v2/session');
    expect(ownerSession.status()).toBe(200);
    expect(errors).toEqual([]);
  });
});
