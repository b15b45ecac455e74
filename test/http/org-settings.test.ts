import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createUser, issueApiKey } from '../../src/services/identity/identity.service.js';
import { resetLink, resetPasswordTo } from '../../src/services/identity/password-reset.service.js';
import { setPassword } from '../../src/services/identity/sign-in.service.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { OWNER_PASSWORD } from '../helpers/sessions.js';
import { ENGINES } from '../helpers/stores.js';

/**
 * Password sign-in per organization: owners and admins turn it off for their members (who then
 * sign in through single sign-on or use API keys), the change is audited, and another
 * organization's members keep their passwords.
 */

const OFF = 'password sign-in is turned off for this organization: use single sign-on';
const MEMBER_PASSWORD = 'a long enough member password';

describe.each(ENGINES)('password sign-in per organization on %s', (engine) => {
  let t: TestApp;
  let adminKey: string;
  let memberKey: string;
  const admin = `admin-${engine}@example.com`;
  const member = `member-${engine}@example.com`;
  const other = `other-${engine}@example.org`;
  let otherKey: string;
  let otherOrgId: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: {
        // A provider is configured (never reached here): it signs people in to the owner's organization.
        ANNOTARY_OIDC_ISSUER: 'http://127.0.0.1:9/realms/corp',
        ANNOTARY_OIDC_CLIENT_ID: 'annotary',
        ANNOTARY_OIDC_NAME: 'Corp ID',
        ANNOTARY_BOOTSTRAP_PASSWORD: OWNER_PASSWORD,
      },
    });
    adminKey = await t.addUser(admin, 'admin');
    memberKey = await t.addUser(member, 'member');
    const memberRow = await t.store.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', member)
      .executeTakeFirstOrThrow();
    await setPassword(t.store.db, t.ctx, memberRow.id, MEMBER_PASSWORD);
    // A second organization, whose member keeps signing in with a password.
    const org = await createOrganization(t.store.db, t.ctx.clock, 'Elsewhere', 'standard');
    otherOrgId = org.id;
    const user = await createUser(t.store.db, t.ctx.clock, { email: other, orgId: org.id, orgRole: 'owner' });
    otherKey = await issueApiKey(t.store.db, t.ctx.clock, user.id);
    await setPassword(t.store.db, t.ctx, user.id, MEMBER_PASSWORD);
    // The provider has no organization set and the install now has two: name the owner's.
    t.ctx.config.oidcProviders = t.ctx.config.oidcProviders.map((p) => ({ ...p, organization: t.orgId }));
  }, 60_000);
  afterAll(() => t?.close());

  const settingsUrl = () => `/v2/organization/${t.orgId}/settings`;
  const signIn = (email: string, password: string) =>
    t.call('POST', '/v2/session', { key: null, body: { email, password } });
  async function settingRecords() {
    const res = await t.call('GET', `/v2/organization/${t.orgId}/audit?operation=organization.settings`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.records as Record<string, unknown>[];
  }

  it('answers the settings to owners and admins only, and hides other organizations', async () => {
    const res = await t.call('GET', settingsUrl(), { key: adminKey });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.settings).toEqual({
      passwordSignIn: true,
      serverPasswordSignIn: true,
      singleSignOn: ['Corp ID'],
    });
    expect((await t.call('GET', settingsUrl(), { key: memberKey })).statusCode).toBe(403);
    expect((await t.call('POST', settingsUrl(), { key: memberKey, body: { passwordSignIn: false } })).statusCode).toBe(
      403,
    );
    expect((await t.call('GET', settingsUrl(), { key: otherKey })).statusCode).toBe(404);
    expect(
      (await t.call('POST', `/v2/organization/${otherOrgId}/settings`, { body: { passwordSignIn: false } })).statusCode,
    ).toBe(404);
  });

  it('refuses bad input naming the field, and turning passwords off without single sign-on; writes no record', async () => {
    const bad = await t.call('POST', settingsUrl(), { body: { passwordSignIn: 'no' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('passwordSignIn');
    const unknown = await t.call('POST', settingsUrl(), { body: { passwordSignIns: false } });
    expect(unknown.statusCode).toBe(400);
    const providers = t.ctx.config.oidcProviders;
    t.ctx.config.oidcProviders = [];
    try {
      const noSso = await t.call('POST', settingsUrl(), { body: { passwordSignIn: false } });
      expect(noSso.statusCode).toBe(400);
      expect(noSso.json().errors).toEqual([
        expect.objectContaining({ field: 'passwordSignIn', message: expect.stringContaining('single sign-on') }),
      ]);
    } finally {
      t.ctx.config.oidcProviders = providers;
    }
    expect(await settingRecords()).toEqual([]);
    expect(JSON.stringify(bad.json())).not.toMatch(/at .*\.ts|SELECT|UPDATE/);
  });

  it('turned off: refuses the members passwords and links in words, keeps API keys, audits the change once', async () => {
    const res = await t.call('POST', settingsUrl(), { key: adminKey, body: { passwordSignIn: false } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.settings).toMatchObject({ passwordSignIn: false });
    const [record, ...more] = await settingRecords();
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      operation: 'organization.settings',
      target: { type: 'organization', id: t.orgId },
      fields: ['passwordSignIn'],
      actor: expect.any(String),
    });
    // The same value again changes nothing and records nothing.
    expect((await t.call('POST', settingsUrl(), { body: { passwordSignIn: false } })).statusCode).toBe(200);
    expect(await settingRecords()).toHaveLength(1);

    // The right password hears about single sign-on; a wrong one answers as any wrong password.
    const right = await signIn(member, MEMBER_PASSWORD);
    expect(right.statusCode).toBe(403);
    expect(right.json().message).toBe(OFF);
    expect(right.cookies.find((c) => c.name === 'annotary_session')).toBeUndefined();
    const wrong = await signIn(member, 'not the password at all');
    expect(wrong.statusCode).toBe(401);
    expect((await signIn(t.ownerEmail, OWNER_PASSWORD)).statusCode).toBe(403);

    // Resets and links: refused.
    await expect(resetLink(t.ctx, member)).rejects.toThrow(OFF);
    await expect(resetPasswordTo(t.ctx, member, 'another long password')).rejects.toThrow(OFF);
    const invite = await t.call('POST', `/v2/organization/${t.orgId}/invites`, {
      body: { to: [`invitee-${engine}@example.com`] },
    });
    expect(invite.statusCode, invite.body).toBe(201);
    const token = (invite.json().data.links[0].url as string).split('/').pop();
    const link = await t.call('GET', `/v2/password-links/${token}`, { key: null });
    expect(link.statusCode).toBe(403);
    expect(link.json().message).toBe(OFF);
    const use = await t.call('POST', `/v2/password-links/${token}`, {
      key: null,
      body: { password: 'a password for the invite' },
    });
    expect(use.statusCode).toBe(403);

    // API keys keep working, as header and as the console's key sign-in.
    expect((await t.call('GET', '/v2/session', { key: memberKey })).statusCode).toBe(200);
    expect((await t.call('POST', '/v2/session', { key: null, body: { apiKey: memberKey } })).statusCode).toBe(200);

    // Another organization's member is not affected; the sign-in page still offers passwords for them.
    expect((await signIn(other, MEMBER_PASSWORD)).statusCode).toBe(200);
    const page = await t.call('GET', '/v2/session/providers', { key: null });
    expect(page.json().data.passwordSignIn).toBe(true);
  });

  it('turned on again: passwords work, and the change is a second record', async () => {
    const res = await t.call('POST', settingsUrl(), { body: { passwordSignIn: true } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await signIn(member, MEMBER_PASSWORD)).statusCode).toBe(200);
    expect(await settingRecords()).toHaveLength(2);
  });

  it('offers no password form when every organization turned passwords off', async () => {
    const turnOff = async (orgId: string, key: string) =>
      expect(
        (await t.call('POST', `/v2/organization/${orgId}/settings`, { key, body: { passwordSignIn: false } }))
          .statusCode,
      ).toBe(200);
    t.ctx.config.oidcProviders = [
      ...t.ctx.config.oidcProviders,
      { ...t.ctx.config.oidcProviders[0]!, id: 'elsewhere', name: 'Elsewhere ID', organization: otherOrgId },
    ];
    await turnOff(t.orgId, t.ownerKey);
    await turnOff(otherOrgId, otherKey);
    const page = await t.call('GET', '/v2/session/providers', { key: null });
    expect(page.json().data.passwordSignIn).toBe(false);
    expect((await signIn(other, MEMBER_PASSWORD)).statusCode).toBe(403);
  });
});
