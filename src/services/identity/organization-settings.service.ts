import type { AppContext } from '../../context.js';
import { AppError, invalidField, notFound } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import { audit } from '../audit/audit.service.js';
import { demandOrgAdmin, type Principal } from '../../access.js';

/*
 * An organization's sign-in settings. Password sign-in is allowed for a person when the server
 * allows it (ANNOTARY_PASSWORD_SIGNIN, on unless set to false) and their organization does: an
 * account belongs to one organization (an e-mail address is one account per install), so its
 * organization's setting is the one that applies. Off, the person signs in through single sign-on
 * or with an API key; password links (resets, invites) are refused too.
 */

/** The answer to a password sign-in, link or reset when password sign-in is off. */
export const PASSWORD_SIGNIN_OFF = 'password sign-in is turned off for this organization: use single sign-on';

/** Whether members of the organization may sign in (and set a password) with e-mail and password. */
export async function passwordSignInAllowed(ctx: AppContext, db: Executor, orgId: string): Promise<boolean> {
  if (!ctx.config.passwordSignIn) return false;
  const org = await identityRepo.findOrganization(db, orgId);
  return org !== undefined && org.password_sign_in === 1;
}

/** Refuses, in words pointing to single sign-on, when the organization's members may not use passwords. */
export async function demandPasswordSignIn(ctx: AppContext, db: Executor, orgId: string): Promise<void> {
  if (!(await passwordSignInAllowed(ctx, db, orgId))) throw new AppError('FORBIDDEN', PASSWORD_SIGNIN_OFF);
}

/** The single sign-on providers that sign people in to the organization. */
async function providersOf(ctx: AppContext, orgId: string): Promise<string[]> {
  const only = ctx.config.oidcProviders.some((p) => p.organization === undefined)
    ? await identityRepo.onlyOrganizationId(ctx.store.db)
    : undefined;
  return ctx.config.oidcProviders.filter((p) => (p.organization ?? only) === orgId).map((p) => p.name);
}

function ensureOrg(p: Principal, orgId: string): void {
  // Another organization is invisible, like a project the caller cannot see.
  if (orgId !== p.orgId) throw notFound('organization');
  demandOrgAdmin(p);
}

async function settingsView(ctx: AppContext, orgId: string) {
  const org = await identityRepo.findOrganization(ctx.store.db, orgId);
  if (!org) throw notFound('organization');
  return {
    passwordSignIn: ctx.config.passwordSignIn && org.password_sign_in === 1,
    serverPasswordSignIn: ctx.config.passwordSignIn,
    singleSignOn: await providersOf(ctx, orgId),
  };
}

/** GET /organization/{orgId}/settings: owners and admins. */
export async function getOrgSettings(ctx: AppContext, p: Principal, orgId: string) {
  ensureOrg(p, orgId);
  return { settings: await settingsView(ctx, orgId) };
}

/**
 * POST /organization/{orgId}/settings: owners and admins. Turning password sign-in off needs a
 * single sign-on provider for the organization (else only API keys would reach the console);
 * turning it on is refused while the server turns it off for everyone. A change is audited.
 */
export async function updateOrgSettings(
  ctx: AppContext,
  p: Principal,
  orgId: string,
  input: { passwordSignIn?: boolean | undefined },
) {
  ensureOrg(p, orgId);
  const wanted = input.passwordSignIn;
  if (wanted === false && (await providersOf(ctx, orgId)).length === 0) {
    throw invalidField(
      'passwordSignIn',
      'can be turned off only when single sign-on is set up for this organization (ANNOTARY_OIDC_ISSUER, docs/operations.md)',
    );
  }
  if (wanted === true && !ctx.config.passwordSignIn) {
    throw invalidField(
      'passwordSignIn',
      'is turned off for the whole server (ANNOTARY_PASSWORD_SIGNIN=false): an organization cannot turn it on',
    );
  }
  if (wanted !== undefined) {
    await ctx.store.db.transaction().execute(async (trx) => {
      const org = await identityRepo.findOrganization(trx, orgId);
      if (!org) throw notFound('organization');
      if ((org.password_sign_in === 1) === wanted) return;
      await identityRepo.setOrganizationPasswordSignIn(trx, orgId, wanted);
      await audit(trx, ctx.clock, p, {
        operation: 'organization.settings',
        targetType: 'organization',
        targetId: orgId,
        fields: ['passwordSignIn'],
      });
    });
  }
  return { settings: await settingsView(ctx, orgId) };
}
