import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signIn, signInAsOwner, signOutFromMenu } from './helpers/sign-in.js';

const engine = ENGINES[0] ?? 'sqlite';

/** A write from the signed-in browser, as the console sends it: cookie plus CSRF header. */
async function browserWrite(page: Page, method: 'POST' | 'DELETE', url: string, data: unknown) {
  const session = await page.request.get('/v2/session');
  const csrf = ((await session.json()) as { data: { csrfToken: string } }).data.csrfToken;
  return page.request.fetch(url, { method, data, headers: { 'x-csrf-token': csrf } });
}

describe('an invited person joins through the accept link', () => {
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

  it('owner invites, invitee sets a password, is signed in as a Labeler and sees only what the role allows', async () => {
    const ownerContext = await newContext(browser, server.url);
    const owner = await ownerContext.newPage();
    await signInAsOwner(owner, server);
    const project = await browserWrite(owner, 'POST', '/v2/project', { name: 'Street signs' });
    expect(project.status()).toBe(201);
    const projectId = ((await project.json()) as { data: { project: { _id: string } } }).data.project._id;
    const email = 'lena@example.com';
    const invite = await browserWrite(owner, 'POST', `/v2/organization/${server.orgId}/invites`, {
      to: [email],
      organizationRole: 'member',
      projectAssignments: [{ projectId, projectRole: 'Labeler' }],
    });
    expect(invite.status()).toBe(201);
    const link = ((await invite.json()) as { data: { links: { url: string }[] } }).data.links[0]?.url ?? '';
    expect(link.startsWith(`${server.url}/invite/`)).toBe(true);
    // The owner's list of invites waiting says the project and the role on it.
    await owner.goto('/org');
    const waiting = owner.getByRole('row').filter({ hasText: email });
    await waiting.getByRole('cell', { name: 'Labeler on “Street signs”' }).waitFor();
    expect(await waiting.getByRole('cell', { name: 'member', exact: true }).count()).toBe(1);
    // The invite form offers Labeler first once a project is chosen.
    await owner.getByLabel('Project to join').selectOption({ label: 'Street signs' });
    expect(await owner.getByLabel('Project role').inputValue()).toBe('Labeler');
    await screenshot(owner, 'invite-waiting');

    const inviteeContext = await newContext(browser, server.url);
    const invitee = await inviteeContext.newPage();
    const errors = pageErrors(invitee);
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: 'Join Default organization' }).waitFor();
    await invitee.getByText('You are invited to Street signs as Labeler with lena@example.com.').waitFor();
    await invitee.getByLabel('Your name').fill('Lena Labeler');
    await invitee.getByLabel('New password').fill('lena password 1');
    await invitee.getByLabel('Repeat the password').fill('lena password 2');
    await invitee.getByRole('button', { name: 'Join and sign in' }).click();
    expect(await invitee.getByText('Type the same password twice.').isVisible()).toBe(true);
    await invitee.getByLabel('Repeat the password').fill('lena password 1');
    await screenshot(invitee, 'invite-accept');
    await invitee.getByRole('button', { name: 'Join and sign in' }).click();
    // A Labeler lands on the work queue, not on the project list with its New project form.
    await invitee.getByRole('heading', { name: 'Work', exact: true }).waitFor();
    expect(new URL(invitee.url()).pathname).toBe('/work');
    await screenshot(invitee, 'invite-after-accept');
    expect(await invitee.getByText('Lena Labeler', { exact: true }).isVisible()).toBe(true);

    await invitee.getByText('Lena Labeler', { exact: true }).click();
    await invitee.getByRole('link', { name: 'Your account and API key' }).click();
    await invitee.getByRole('heading', { name: 'Your account' }).waitFor();
    await expect(invitee.getByRole('link', { name: 'make a new API key' }).getAttribute('href')).resolves.toBe(
      '/org?tab=api-key',
    );
    await invitee.getByText('Labeler on “Street signs”').waitFor();
    const note = invitee.getByRole('note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^Your role does not allow you to see the organization's people/);
    await screenshot(invitee, 'account-labeler');
    // A Manager-only call from the Labeler's browser session is refused.
    const managerOnly = await browserWrite(invitee, 'POST', `/v2/project/${projectId}/assigned`, {
      assignees: [email],
      role: 'Manager',
    });
    expect(managerOnly.status()).toBe(403);

    // Signed out, the invitee signs in again with the chosen password.
    await signOutFromMenu(invitee, 'Lena Labeler');
    await signIn(invitee, email, 'lena password 1', '/account');
    await invitee.getByRole('heading', { name: 'Your account' }).waitFor();
    // The only page error: the 403 the account page showed politely (the accept page, the
    // sign-in page and signing out log nothing).
    expect(errors.filter((e) => !/status of 403/.test(e))).toEqual([]);

    // The link was used: opened again, it says so.
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: 'This link no longer works' }).waitFor();
    await screenshot(invitee, 'invite-link-used');

    await owner.goto('/account');
    await owner.getByRole('cell', { name: email }).waitFor();
    await screenshot(owner, 'account-owner');
    await ownerContext.close();
    await inviteeContext.close();
  });
});
