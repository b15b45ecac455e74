import type { Page } from 'playwright-core';
import { OWNER_PASSWORD } from '../../helpers/sessions.js';
import type { ConsoleServer } from './console-server.js';

/**
 * Signs in on /signin as a person would: types the e-mail and password and waits until the
 * console has left the sign-in page. `path` is where to start (a guarded page sends the
 * browser to /signin?next=<path> and back after sign-in). The signed-out page logs nothing
 * (the console asks GET /v2/session/state, answered 200), so pageErrors() may start before.
 */
export async function signIn(page: Page, email: string, password: string, path = '/'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/signin');
}

/** The bootstrap owner of startConsoleServer, signed in. */
export async function signInAsOwner(page: Page, server: ConsoleServer, path = '/'): Promise<void> {
  await signIn(page, server.ownerEmail, OWNER_PASSWORD, path);
}

/** Signs out through the top bar's user menu and waits for the sign-in page. */
export async function signOutFromMenu(page: Page, userLabel: string): Promise<void> {
  const signOut = page.getByRole('button', { name: 'Sign out' });
  // The menu may still be open from an earlier visit: a second click would close it.
  if (!(await signOut.isVisible())) await page.getByRole('banner').getByText(userLabel, { exact: true }).click();
  await signOut.click();
  await page.waitForURL('**/signin');
}
