import type { Page } from 'playwright-core';
import { OWNER_PASSWORD } from '../../helpers/sessions.js';
import type { ConsoleServer } from './console-server.js';

/**
 * Signs in on /signin as a person would: types the e-mail and password and waits until the
 * console has left the sign-in page. `path` is where to start (a guarded page sends the
 * browser to /signin?next=<path> and back after sign-in). Before sign-in the console's
 * GET /v2/session answers 401, which Chromium prints as a console error: start pageErrors()
 * after this.
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
