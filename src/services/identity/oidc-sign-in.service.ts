import { SecretBox, SecretBoxError } from '../../adapters/crypto/secret-box.js';
import { OidcRefusal } from '../../adapters/oidc/oidc-client.js';
import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../errors.js';
import type { OidcProviderConfig } from '../../oidc-config.js';
import { describeError } from '../../log-safe.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as inviteRepo from '../../store/repositories/invite.repository.js';
import * as projectRepo from '../../store/repositories/project.repository.js';
import * as sessionRepo from '../../store/repositories/session.repository.js';
import { audit } from '../audit/audit.service.js';
import { isOrgRole, type OrgRole, type ProjectRole } from '../../access.js';
import { createUser, isEmail, normalizeEmail } from './identity.service.js';
import { principalsChanged } from './principal-cache.js';
import { createSession } from './session.service.js';
import { SIGN_IN_LIMITS, spend } from './sign-in.service.js';

/*
 * Sign-in through an OpenID Connect provider. The first leg (start) makes the checks (state,
 * nonce, PKCE verifier) and hands them to the browser sealed in a short-lived cookie; the second
 * (finish) opens them, lets openid-client exchange the code and verify the ID token, then
 * decides who the person is in Annotary: an existing account by e-mail, or one made now when the
 * provider's mapping allows it. Every refusal after the provider answered is audited.
 */

/** The cookie that carries one sign-in's checks between the two legs. */
export const OIDC_FLOW_COOKIE = 'annotary_oidc';
/** The cookie that remembers, for sign-out, which provider signed the person in (and its ID token). */
export const OIDC_LOGOUT_COOKIE = 'annotary_oidc_logout';
/** Minutes a person has to finish signing in at the provider. */
export const OIDC_FLOW_MINUTES = 10;

interface Flow {
  provider: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
  expiresAt: number;
}

function box(ctx: AppContext): SecretBox {
  return new SecretBox(ctx.secretKey, 'oidc-cookies');
}

/**
 * The providers the sign-in page offers, each a button, and whether it offers e-mail and
 * password: when the server and at least one organization allow it.
 */
export async function listProviders(ctx: AppContext) {
  return {
    providers: ctx.config.oidcProviders.map((p) => ({ id: p.id, name: p.name })),
    passwordSignIn: ctx.config.passwordSignIn && (await identityRepo.anyOrganizationWithPasswords(ctx.store.db)),
  };
}

function providerById(ctx: AppContext, id: string): OidcProviderConfig {
  const provider = ctx.config.oidcProviders.find((p) => p.id === id);
  if (!provider) throw notFound('sign-in provider');
  return provider;
}

/** Where a person goes after signing in: a path of the console only, never another site. */
export function safeNext(next: string | undefined): string {
  // Browsers drop tabs and newlines and read \ as /, which would turn "/\t/x" into "//x": refused.
  if (!next || !next.startsWith('/') || next.startsWith('//')) return '/';
  if ([...next].some((c) => c === '\\' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return '/';
  return next.length > 2000 ? '/' : next;
}

/** First leg: the provider's address to send the browser to, and the sealed checks for the cookie. */
export async function startOidcSignIn(
  ctx: AppContext,
  providerId: string,
  redirectUri: string,
  next: string | undefined,
): Promise<{ url: string; flowCookie: string }> {
  const provider = providerById(ctx, providerId);
  let started: Awaited<ReturnType<AppContext['oidc']['authorizationUrl']>>;
  try {
    started = await ctx.oidc.authorizationUrl(provider, redirectUri);
  } catch (err) {
    if (err instanceof OidcRefusal) throw new AppError('UPSTREAM', err.message);
    throw err;
  }
  const flow: Flow = {
    provider: provider.id,
    ...started.checks,
    next: safeNext(next),
    expiresAt: ctx.clock.now() + OIDC_FLOW_MINUTES * 60_000,
  };
  return { url: started.url, flowCookie: box(ctx).seal(JSON.stringify(flow), OIDC_FLOW_COOKIE) };
}

function openFlow(ctx: AppContext, providerId: string, sealed: string | undefined): Flow {
  const lost =
    'this browser did not start this sign-in, or took longer than 10 minutes: start again from the sign-in page';
  if (!sealed) throw new AppError('UNAUTHENTICATED', lost);
  let flow: Flow;
  try {
    flow = JSON.parse(box(ctx).open(sealed, OIDC_FLOW_COOKIE)) as Flow;
  } catch (err) {
    if (err instanceof SecretBoxError || err instanceof SyntaxError) throw new AppError('UNAUTHENTICATED', lost);
    throw err;
  }
  if (flow.provider !== providerId || flow.expiresAt <= ctx.clock.now()) throw new AppError('UNAUTHENTICATED', lost);
  return flow;
}

const ORG_RANK: Record<OrgRole, number> = { member: 0, admin: 1, owner: 2 };
const PROJECT_RANK: Record<ProjectRole, number> = { Labeler: 0, Reviewer: 1, Lead: 2, Manager: 3 };

/** What the person's groups give: the highest organization role and, per project, the highest role. */
export function grantsOf(provider: OidcProviderConfig, groups: readonly string[]) {
  let orgRole: OrgRole | undefined;
  const projects: Record<string, ProjectRole> = {};
  const matched: string[] = [];
  for (const group of groups) {
    const grant = provider.groupRoles[group];
    if (!grant) continue;
    matched.push(group);
    const role = grant.organizationRole;
    if (role && (!orgRole || ORG_RANK[role] > ORG_RANK[orgRole])) orgRole = role;
    for (const [projectId, r] of Object.entries(grant.projects)) {
      const had = projects[projectId];
      if (!had || PROJECT_RANK[r] > PROJECT_RANK[had]) projects[projectId] = r;
    }
  }
  return { orgRole, projects, matched };
}

/** The groups claim as a list: an array of strings, or one string. */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}

interface Identity {
  email: string;
  name: string | undefined;
}

function identityOf(provider: OidcProviderConfig, claims: Record<string, unknown>): Identity {
  const raw = claims[provider.emailClaim];
  if (!isEmail(raw)) {
    throw new AppError(
      'FORBIDDEN',
      `the identity provider sent no e-mail address in the claim "${provider.emailClaim}": ask an administrator to check the provider's settings`,
    );
  }
  const email = normalizeEmail(raw);
  if (claims.email_verified === false && provider.emailClaim === 'email') {
    throw new AppError('FORBIDDEN', `the identity provider has not verified ${email}: verify it there first`);
  }
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (provider.allowedDomains.length > 0 && !provider.allowedDomains.includes(domain)) {
    throw new AppError(
      'FORBIDDEN',
      `e-mail addresses of ${domain} may not sign in here: use your organization's address`,
    );
  }
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 200) : undefined;
  return { email, name };
}

async function organizationFor(ctx: AppContext, provider: OidcProviderConfig): Promise<string> {
  const id = provider.organization ?? (await identityRepo.onlyOrganizationId(ctx.store.db));
  if (!id || !(await identityRepo.findOrganization(ctx.store.db, id))) {
    ctx.log.error(
      { provider: provider.id },
      'OpenID Connect: no organization to sign people in to (set its organization)',
    );
    throw new AppError('UNAVAILABLE', 'single sign-on is not set up completely here: ask an administrator');
  }
  return id;
}

const higher = (a: OrgRole, b: OrgRole | undefined): OrgRole => (b && ORG_RANK[b] > ORG_RANK[a] ? b : a);

/**
 * Finds or makes the person's account and applies what their groups map to; answers the user id.
 * An open invite for the e-mail makes the account with the invited role (or the higher one the
 * groups map to) whatever the mapping allows, and is then used up; a person an invite made is not
 * refused later for groups that map to nothing, and their groups only ever raise their role.
 * One transaction: the account, its roles and their audit records commit together.
 */
async function accountFor(
  ctx: AppContext,
  provider: OidcProviderConfig,
  orgId: string,
  who: Identity,
  claims: Record<string, unknown>,
  address: string,
): Promise<string> {
  const groups = provider.groupsClaim ? groupsOf(claims[provider.groupsClaim]) : [];
  const grants = grantsOf(provider, groups);
  const mapsNothing = provider.groupsClaim !== undefined && grants.matched.length === 0;
  const now = new Date(ctx.clock.now()).toISOString();
  const { userId, changed } = await ctx.store.db.transaction().execute(async (trx) => {
    const existing = await identityRepo.findUserByEmail(trx, who.email);
    if (existing && existing.organization_id !== orgId) {
      throw new AppError('FORBIDDEN', `${who.email} belongs to another organization than this provider signs in to`);
    }
    const invite = existing ? undefined : await inviteRepo.findInvite(trx, orgId, who.email);
    const invited = invite !== undefined || existing?.joined_by_invite === 1;
    if (mapsNothing && !invited) {
      const refusal = groups.length
        ? `your groups (${groups.slice(0, 10).join(', ')}) give no role in Annotary`
        : 'you are in no group that gives a role in Annotary';
      throw new AppError('FORBIDDEN', `${refusal}: ask an administrator to map one of your groups`);
    }
    let id: string;
    const fields: string[] = [];
    const actorOf = (userId: string) => ({ orgId, userId, keyId: null, address });
    if (existing) {
      id = existing.id;
      const had = isOrgRole(existing.org_role) ? existing.org_role : 'member';
      // The mapping sets the role each sign-in (an invited person's it only raises); an owner is never demoted by it.
      const role = invited ? higher(had, grants.orgRole) : (grants.orgRole ?? 'member');
      if (provider.groupsClaim && had !== 'owner' && had !== role) {
        await identityRepo.setUserOrgRole(trx, id, role);
        fields.push('organizationRole');
      }
    } else if (invite) {
      const invitedRole = isOrgRole(invite.organization_role) ? invite.organization_role : 'member';
      const user = await createUser(trx, ctx.clock, {
        email: who.email,
        orgId,
        orgRole: higher(invitedRole, grants.orgRole),
        joinedByInvite: true,
        ...(who.name ? { name: who.name } : {}),
      });
      id = user.id;
      // The invite is used up, and with it its accept link; its project roles (keyed by e-mail) now apply.
      await sessionRepo.deleteInviteLinks(trx, invite.id);
      await inviteRepo.deleteInvites(trx, [invite.id]);
      await audit(trx, ctx.clock, actorOf(id), {
        operation: 'invite.accept',
        targetType: 'user',
        targetId: id,
        fields: ['email', 'organizationRole', ...(who.name ? ['name'] : [])],
      });
    } else {
      const role = provider.groupsClaim ? (grants.orgRole ?? 'member') : provider.defaultRole;
      if (!role) {
        throw new AppError(
          'FORBIDDEN',
          `no account here uses ${who.email}, and this provider does not create accounts: ask an administrator to invite you`,
        );
      }
      const user = await createUser(trx, ctx.clock, {
        email: who.email,
        orgId,
        orgRole: role,
        ...(who.name ? { name: who.name } : {}),
      });
      id = user.id;
      await audit(trx, ctx.clock, actorOf(id), {
        operation: 'user.create.oidc',
        targetType: 'user',
        targetId: id,
        fields: ['email', 'name', 'organizationRole'],
      });
    }
    const projectIds = Object.keys(grants.projects);
    const known = await projectRepo.projectNamesInOrg(trx, orgId, projectIds);
    for (const { id: projectId } of known) {
      const role = grants.projects[projectId] as ProjectRole;
      await projectRepo.upsertMembers(trx, projectId, [{ email: who.email, role }], now);
    }
    if (known.length) fields.push('projectRoles');
    if (existing && fields.length) {
      await audit(trx, ctx.clock, actorOf(id), {
        operation: 'member.role.oidc',
        targetType: 'user',
        targetId: id,
        fields,
      });
    }
    return { userId: id, changed: existing !== undefined && fields.length > 0 };
  });
  // A role the mapping changed applies to the person's API key at once, on every replica.
  if (changed) await principalsChanged(ctx.store.db);
  return userId;
}

export interface OidcSignedIn {
  token: string;
  next: string;
  /** The sealed provider and ID token, for ending the provider's session at sign-out. */
  logoutCookie: string;
}

/**
 * Second leg: checks the provider's answer (`callbackUrl`, the address as the browser reached
 * it) against the sealed checks, and starts a console session. Refusals are AppErrors in words;
 * each one after the provider is known is audited (no token, code or secret in the record).
 */
export async function finishOidcSignIn(
  ctx: AppContext,
  providerId: string,
  callbackUrl: URL,
  flowCookie: string | undefined,
  address: string,
): Promise<OidcSignedIn> {
  const provider = providerById(ctx, providerId);
  await spend(ctx, `signin:address:${address}`, SIGN_IN_LIMITS.perAddress);
  const orgId = await organizationFor(ctx, provider);
  let userId: string | null = null;
  try {
    const flow = openFlow(ctx, provider.id, flowCookie);
    const wanted = [provider.emailClaim, ...(provider.groupsClaim ? [provider.groupsClaim] : [])];
    let result: Awaited<ReturnType<AppContext['oidc']['finish']>>;
    try {
      result = await ctx.oidc.finish(provider, callbackUrl, flow, wanted);
    } catch (err) {
      if (err instanceof OidcRefusal) {
        ctx.log.warn(
          { provider: provider.id, reason: err.reason, detail: err.message },
          'OpenID Connect sign-in refused',
        );
        const upstream = err.reason === 'discovery' || err.reason === 'userinfo';
        throw new AppError(upstream ? 'UPSTREAM' : 'UNAUTHENTICATED', err.message);
      }
      throw err;
    }
    const who = identityOf(provider, result.claims);
    // A refusal of a known person is recorded against them.
    userId = (await identityRepo.findUserByEmail(ctx.store.db, who.email))?.id ?? null;
    userId = await accountFor(ctx, provider, orgId, who, result.claims, address);
    const { token } = await createSession(ctx, userId, address, 'session.signin.oidc');
    const logout = JSON.stringify({ provider: provider.id, idToken: result.idToken });
    return { token, next: flow.next, logoutCookie: box(ctx).seal(logout, OIDC_LOGOUT_COOKIE) };
  } catch (err) {
    try {
      const actor = { orgId, userId, keyId: null, address };
      await audit(ctx.store.db, ctx.clock, actor, {
        operation: 'session.signin.oidc.failed',
        targetType: 'oidc-provider',
        targetId: provider.id,
      });
    } catch (auditErr) {
      ctx.log.error({ error: describeError(auditErr) }, 'OpenID Connect: the failed sign-in could not be audited');
    }
    throw err;
  }
}

/** Where the browser goes to end the provider's session too, when the person signed in through one offering it. */
export async function providerSignOutUrl(
  ctx: AppContext,
  logoutCookie: string | undefined,
  postLogoutRedirectUri: string,
): Promise<string | undefined> {
  if (!logoutCookie) return undefined;
  try {
    const { provider: id, idToken } = JSON.parse(box(ctx).open(logoutCookie, OIDC_LOGOUT_COOKIE)) as {
      provider: string;
      idToken: string;
    };
    const provider = ctx.config.oidcProviders.find((p) => p.id === id);
    if (!provider) return undefined;
    return await ctx.oidc.endSessionUrl(provider, idToken, postLogoutRedirectUri);
  } catch (err) {
    // The console session has ended either way; the provider's stays, which the log says.
    ctx.log.warn({ error: describeError(err) }, "OpenID Connect: the provider's sign-out address could not be made");
    return undefined;
  }
}
