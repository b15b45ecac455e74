import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { launchBrowser, newContext, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner } from './helpers/sign-in.js';
import { OWNER_PASSWORD } from '../helpers/sessions.js';

const engine = ENGINES[0] ?? 'sqlite';

describe('signing in to the console through an OpenID Connect provider', () => {
  let op: TestOidcProvider;
  let server: ConsoleServer;
  let browser: Browser;
  beforeAll(async () => {
    op = await startOidcProvider({
      redirectUris: () => [`${server.url}/v2/session/oidc/corp/callback`],
      postLogoutUris: () => [`${server.url}/signin`],
    });
    op.people.set('ada', {
      email: 'ada@example.com',
      email_verified: true,
      name: 'Ada Admin',
      groups: ['annotary-admins'],
    });
    op.people.set('bob', { email: 'bob@example.com', email_verified: true, name: 'Bob', groups: ['cafeteria'] });
    server = await startConsoleServer(engine, {
      env: {
        ANNOTARY_OIDC_ID: 'corp',
        ANNOTARY_OIDC_NAME: 'Corp ID',
        ANNOTARY_OIDC_ISSUER: op.issuer,
        ANNOTARY_OIDC_CLIENT_ID: op.clientId,
        ANNOTARY_OIDC_CLIENT_SECRET: op.clientSecret,
        ANNOTARY_OIDC_SCOPES: 'openid email profile groups',
        ANNOTARY_OIDC_GROUPS_CLAIM: 'groups',
        ANNOTARY_OIDC_GROUP_ROLES: JSON.stringify({ 'annotary-admins': { organizationRole: 'admin' } }),
        ANNOTARY_OIDC_ALLOWED_DOMAINS: 'example.com',
      },
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await op?.close();
  });

  it("signs in at the provider's login page, lands in the console as the mapped role, and signs out of both", async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    // What the console's pages logged as errors (the provider's pages load a web font it cannot reach).
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && msg.location().url.startsWith(server.url)) errors.push(msg.text());
    });
    await page.goto('/projects');
    await page.waitForURL('**/signin?next=%2Fprojects');
    const button = page.getByRole('link', { name: 'Sign in with Corp ID' });
    await button.waitFor();
    await screenshot(page, 'sign-in-with-provider');
    await button.click();

    // The provider's own login page (oidc-provider's), on another origin.
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('whatever the provider accepts');
    await screenshot(page, 'oidc-provider-login');
    await page.getByRole('button', { name: 'Sign-in' }).click();

    await page.waitForURL((url) => url.origin === server.url && url.pathname === '/projects');
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    const menu = page.getByRole('banner').getByText('Ada Admin', { exact: true });
    await menu.click();
    // The user menu says who is signed in, with the role the group maps to.
    await page.getByText('ada@example.com').waitFor();
    expect(await page.locator('.menu-who').textContent()).toContain('admin of');
    await screenshot(page, 'console-signed-in-with-provider');
    const consoleErrors = [...errors];

    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider asks whether to end its session too, then sends the browser back to /signin.
    await page.waitForURL((url) => url.origin === op.issuer);
    await screenshot(page, 'oidc-provider-sign-out');
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${server.url}/signin`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Both sessions ended: back at the provider, its login page asks again.
    await page.goto('/projects');
    await page.waitForURL('**/signin?next=%2Fprojects');
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').waitFor();
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('shows a refusal in words on the sign-in page', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL((url) => url.origin === op.issuer);
    await page.locator('input[name="login"]').fill('bob');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL((url) => url.origin === server.url && url.pathname === '/signin');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'Your groups (cafeteria) give no role in Annotary: ask an administrator to map one of your groups',
    );
    await screenshot(page, 'sign-in-provider-refused');
    await context.close();
  });

  it("turns password sign-in off on the organization's Sign-in tab: the sign-in page then offers single sign-on only", async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await signInAsOwner(page, server, '/org?tab=sign-in');
    await page.getByRole('heading', { name: 'Sign-in' }).waitFor();
    await page.getByText('Single sign-on: Corp ID.').waitFor();
    const box = page.getByLabel('Members may sign in with e-mail and password');
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.getByRole('button', { name: 'Save sign-in settings' }).click();
    await page.getByRole('status').filter({ hasText: 'password sign-in is off for this organization' }).waitFor();
    await screenshot(page, 'org-sign-in-password-off');
    const record = await server.call('GET', `/v2/organization/${server.orgId}/audit?operation=organization.settings`);
    expect(record.json().data.records).toHaveLength(1);

    // Signed out, the sign-in page offers the provider and an API key, no password form.
    await page.context().clearCookies();
    await page.goto('/signin');
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).waitFor();
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
    await screenshot(page, 'sign-in-password-off');
    // The owner's password is refused in words; the owner's API key still works.
    const refused = await server.call('POST', '/v2/session', {
      key: null,
      body: { email: server.ownerEmail, password: OWNER_PASSWORD },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe('password sign-in is turned off for this organization: use single sign-on');
    expect((await server.call('GET', '/v2/session')).statusCode).toBe(200);
    const back = await server.call('POST', `/v2/organization/${server.orgId}/settings`, {
      body: { passwordSignIn: true },
    });
    expect(back.statusCode).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });
});
