import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner, signOutFromMenu } from './helpers/sign-in.js';

const engine = ENGINES[0] ?? 'sqlite';

describe('signing in to the console', () => {
  let server: ConsoleServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startConsoleServer(engine);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('opens the sign-in page for a visitor without a session with nothing logged in the console', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors = pageErrors(page);
    const asked: { url: string; status: number }[] = [];
    page.on('response', (res) => asked.push({ url: new URL(res.url()).pathname, status: res.status() }));
    await page.goto('/projects');
    await page.waitForURL('**/signin?next=%2Fprojects');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').waitFor();
    await page.waitForLoadState('networkidle');
    // The console asked whether anyone is signed in, and the answer was a plain "no", not a 401.
    expect(asked).toContainEqual({ url: '/v2/session/state', status: 200 });
    expect(asked.filter((a) => a.status >= 400)).toEqual([]);
    // A session that ended (a stale cookie) is the same signed-out case.
    await context.addCookies([{ name: 'annotary_session', value: 'ended-long-ago', url: server.url }]);
    await page.goto('/signin');
    await page.getByLabel('E-mail').waitFor();
    await page.waitForLoadState('networkidle');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a wrong password as an error on the form', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors = pageErrors(page);
    await page.goto('/projects');
    await page.waitForURL('**/signin?next=%2Fprojects');
    await screenshot(page, 'sign-in');
    await page.getByLabel('E-mail').fill(server.ownerEmail);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Wrong e-mail or password');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await screenshot(page, 'sign-in-wrong-password');
    // The failed attempt answered 401; nothing else went wrong on the page.
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('signs the owner in with a password, shows the console, and signs out', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInAsOwner(page, server, '/projects');
    expect(new URL(page.url()).pathname).toBe('/projects');
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    // The top bar names the signed-in person (the owner's display name is "admin").
    expect(await page.getByText('admin', { exact: true }).isVisible()).toBe(true);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'annotary_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await screenshot(page, 'console-signed-in');

    await signOutFromMenu(page, 'admin');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/');
    await page.waitForURL('**/signin?next=%2F');
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('signs in with an API key pasted once', async () => {
    const context = await newContext(browser, server.url);
    const page = await context.newPage();
    await page.goto('/signin');
    await page.getByRole('button', { name: 'Use an API key instead' }).click();
    await page.getByLabel('API key').fill(server.ownerKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/projects');
    // The key is not kept by the browser: only the session cookie is.
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    expect(stored).not.toContain(server.ownerKey);
    await context.close();
  });
});
