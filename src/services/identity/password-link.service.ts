import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../adapters/crypto/password-hash.js';
import type { AppContext } from '../../context.js';
import { audit } from '../audit/audit.service.js';
import { conflict, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as inviteRepo from '../../store/repositories/invite.repository.js';
import * as projectRepo from '../../store/repositories/project.repository.js';
import * as repo from '../../store/repositories/session.repository.js';
import type { PasswordLinkRow } from '../../store/schema.js';
import { isOrgRole, type OrgRole } from '../../access.js';
import { createUser, DEFAULT_BOOTSTRAP_EMAIL, normalizeEmail } from './identity.service.js';
import { hashToken } from './session.service.js';
import { checkPassword, setPassword } from './sign-in.service.js';
import { demandPasswordSignIn } from './organization-settings.service.js';

/** Hours a reset (or first owner's) link stays good; invites use ANNOTARY_INVITE_HOURS. */
export const RESET_LINK_HOURS = 24;

export type LinkPurpose = 'owner' | 'reset' | 'invite';

export interface PasswordLink {
  /** The page that sets the password: `<base>/password/<token>` or `<base>/invite/<token>`. */
  url: string;
  expiresAt: string;
}

/**
 * Makes a one-time link; only the SHA-256 of its token is stored. `base` is the address the
 * link starts with (http/link-base.ts); without it, ANNOTARY_PUBLIC_URL or localhost.
 */
export async function createPasswordLink(
  db: Executor,
  ctx: AppContext,
  link: { purpose: LinkPurpose; email: string; orgId: string; userId?: string; inviteId?: string },
  base = ctx.config.publicUrl,
): Promise<PasswordLink> {
  const now = ctx.clock.now();
  const hours = link.purpose === 'invite' ? ctx.config.inviteHours : RESET_LINK_HOURS;
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now + hours * 3_600_000).toISOString();
  await repo.insertPasswordLink(db, {
    id: newId(now),
    token_hash: hashToken(token),
    purpose: link.purpose,
    email: link.email,
    organization_id: link.orgId,
    user_id: link.userId ?? null,
    invite_id: link.inviteId ?? null,
    created_at: new Date(now).toISOString(),
    expires_at: expiresAt,
  });
  const page = link.purpose === 'invite' ? 'invite' : 'password';
  return { url: `${base}/${page}/${token}`, expiresAt };
}

function roleOf(value: string): OrgRole {
  return isOrgRole(value) ? value : 'member';
}

interface LiveLink {
  row: PasswordLinkRow;
  purpose: LinkPurpose;
  organizationRole: OrgRole;
  organizationName: string;
  /** An invite's project roles, with the projects' names (those still in the organization). */
  projects?: InvitedProject[];
}

interface InvitedProject {
  _id: string;
  name: string;
  role: string;
}

/** The projects an invite gives a role on, named, so the accept page can say where the person goes. */
async function invitedProjects(db: Executor, orgId: string, stored: string): Promise<InvitedProject[]> {
  const assignments = JSON.parse(stored) as { projectId: string; projectRole: string }[];
  if (assignments.length === 0) return [];
  const rows = await projectRepo.projectNamesInOrg(
    db,
    orgId,
    assignments.map((a) => a.projectId),
  );
  const names = new Map(rows.map((r) => [r.id, r.name]));
  return assignments.flatMap((a) => {
    const name = names.get(a.projectId);
    return name === undefined ? [] : [{ _id: a.projectId, name, role: a.projectRole }];
  });
}

/** The link behind a token while it is good: not used, not expired, its invite not withdrawn. */
async function liveLink(db: Executor, ctx: AppContext, token: string): Promise<LiveLink> {
  const gone = notFound('link (it may have expired or been used)');
  if (token.length > 128) throw gone;
  const row = await repo.findPasswordLink(db, hashToken(token), new Date(ctx.clock.now()).toISOString());
  if (!row) throw gone;
  const org = await identityRepo.findOrganization(db, row.organization_id);
  if (!org) throw gone;
  if (row.purpose === 'invite') {
    const invite = await inviteRepo.findInviteById(db, row.invite_id ?? '');
    if (!invite) throw gone;
    return {
      row,
      purpose: 'invite',
      organizationRole: roleOf(invite.organization_role),
      organizationName: org.name,
      projects: await invitedProjects(db, row.organization_id, invite.project_assignments),
    };
  }
  const user = row.user_id ? await identityRepo.findUserById(db, row.user_id) : undefined;
  if (!user) throw gone;
  const purpose = row.purpose === 'owner' ? 'owner' : 'reset';
  return { row, purpose, organizationRole: roleOf(user.org_role), organizationName: org.name };
}

/** What the password page shows before the person chooses a password. */
export async function describeLink(ctx: AppContext, token: string) {
  const { row, purpose, organizationRole, organizationName, projects } = await liveLink(ctx.store.db, ctx, token);
  await demandPasswordSignIn(ctx, ctx.store.db, row.organization_id);
  return {
    purpose,
    email: row.email,
    organization: { _id: row.organization_id, name: organizationName },
    organizationRole,
    ...(projects ? { projects } : {}),
    expiresAt: row.expires_at,
  };
}

/**
 * Sets the password through a link, once. An invite link makes the user with the invited role
 * (project roles were given to the e-mail when the invite was made) and ends the invite. Any
 * other session of the user ends: a reset is often the answer to a lost or shared device.
 */
export async function usePasswordLink(
  ctx: AppContext,
  token: string,
  input: { password: string; name?: string | undefined },
  /** The client's address, for the audit record. */
  address: string | null = null,
): Promise<{ userId: string }> {
  checkPassword(input.password);
  const hash = await hashPassword(input.password);
  const nowIso = new Date(ctx.clock.now()).toISOString();
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row, organizationRole } = await liveLink(trx, ctx, token);
    // A link would set a password and start a session: with password sign-in off, neither happens.
    await demandPasswordSignIn(ctx, trx, row.organization_id);
    // Deleting first makes a second use (even a concurrent one) find nothing.
    if ((await repo.deletePasswordLink(trx, row.id)) === 0) throw notFound('link (it may have expired or been used)');
    let userId = row.user_id;
    if (row.purpose === 'invite') {
      const existing = await identityRepo.findUserByEmail(trx, row.email);
      // Someone who has an account already never gets a password through an invite.
      if (existing) throw conflict(`${row.email} already has an account: sign in, or ask an admin for a reset link`);
      const user = await createUser(trx, ctx.clock, {
        email: row.email,
        orgId: row.organization_id,
        orgRole: organizationRole,
        joinedByInvite: true,
        ...(input.name ? { name: input.name } : {}),
      });
      userId = user.id;
      await inviteRepo.deleteInvites(trx, [row.invite_id ?? '']);
    }
    if (!userId) throw notFound('link (it may have expired or been used)');
    await repo.deleteUserSessions(trx, userId);
    await repo.savePasswordHash(trx, userId, hash, nowIso);
    // The person is who acts: an invite accepted makes their account, a reset sets the password.
    const actor = { orgId: row.organization_id, userId, keyId: null, address };
    const accepted = row.purpose === 'invite';
    await audit(trx, ctx.clock, actor, {
      operation: accepted ? 'invite.accept' : 'user.password',
      targetType: 'user',
      targetId: userId,
      fields: accepted ? ['email', 'organizationRole', 'password', ...(input.name ? ['name'] : [])] : ['password'],
    });
    return { userId };
  });
}

/**
 * The first owner's password: ANNOTARY_BOOTSTRAP_PASSWORD when set (only while the owner has
 * none, so a password changed later is kept), else, on the start that made the owner, a
 * one-time link to set it, which the caller prints.
 */
export async function bootstrapOwnerPassword(ctx: AppContext, created: boolean): Promise<PasswordLink | undefined> {
  const db = ctx.store.db;
  const user = await identityRepo.findUserByEmail(
    db,
    normalizeEmail(ctx.config.bootstrapEmail ?? DEFAULT_BOOTSTRAP_EMAIL),
  );
  if (!user || user.org_role !== 'owner') return undefined;
  if (await repo.findPasswordHash(db, user.id)) return undefined;
  if (ctx.config.bootstrapPassword) {
    await setPassword(db, ctx, user.id, ctx.config.bootstrapPassword);
    return undefined;
  }
  if (!created) return undefined;
  return createPasswordLink(db, ctx, {
    purpose: 'owner',
    email: user.email,
    orgId: user.organization_id,
    userId: user.id,
  });
}
