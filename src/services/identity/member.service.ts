import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { badRequest, conflict, invalidField, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import * as identityRepo from '../../store/repositories/identity.repository.js';
import * as inviteRepo from '../../store/repositories/invite.repository.js';
import * as projectRepo from '../../store/repositories/project.repository.js';
import * as sessionRepo from '../../store/repositories/session.repository.js';
import type { UserRow } from '../../store/schema.js';
import { demandOrgAdmin, isProjectRole, type Principal } from '../../access.js';
import { createUser, isEmail, normalizeEmail } from './identity.service.js';
import { createPasswordLink } from './password-link.service.js';
import { principalsChanged } from './principal-cache.js';
import { loadProject } from './project-access.js';

/** Roles that members and invites may be given; there is one owner, made at bootstrap. */
export const ASSIGNABLE_ORG_ROLES = ['admin', 'member'] as const;
export type AssignableOrgRole = (typeof ASSIGNABLE_ORG_ROLES)[number];

function ensureOrg(p: Principal, orgId: string): void {
  // Another organization is invisible, like a project the caller cannot see.
  if (orgId !== p.orgId) throw notFound('organization');
  demandOrgAdmin(p);
}

function userView(u: UserRow) {
  return { _id: u.id, email: u.email, name: u.name, organizationRole: u.org_role, createdAt: u.created_at };
}

function emailsOf(list: string[], field: string): string[] {
  return list.map((raw, i) => {
    if (!isEmail(raw)) throw invalidField(`${field}[${i}]`, 'must be an e-mail address');
    return normalizeEmail(raw);
  });
}

export async function listOrgUsers(ctx: AppContext, p: Principal, orgId: string) {
  ensureOrg(p, orgId);
  const users = await identityRepo.listOrgUsers(ctx.store.db, orgId);
  return { users: users.map(userView), total: users.length };
}

/** Adds users to the organization, or changes the role of those already in it. */
export async function addOrgUsers(
  ctx: AppContext,
  p: Principal,
  orgId: string,
  users: { email: string; organizationRole?: AssignableOrgRole | undefined }[],
) {
  ensureOrg(p, orgId);
  const emails = emailsOf(
    users.map((u) => u.email),
    'users',
  );
  const auditMember = (trx: Executor, operation: string, userId: string, fields: string[]) =>
    audit(trx, ctx.clock, p, { operation, targetType: 'user', targetId: userId, fields });
  const answer = await ctx.store.db.transaction().execute(async (trx) => {
    const out: UserRow[] = [];
    for (const [i, email] of emails.entries()) {
      const role = users[i]?.organizationRole ?? 'member';
      const existing = await identityRepo.findUserByEmail(trx, email);
      if (existing && existing.organization_id !== orgId) {
        throw conflict(`${email} already belongs to another organization`);
      }
      if (existing?.org_role === 'owner') {
        out.push(existing);
        continue;
      }
      if (existing) {
        await identityRepo.setUserOrgRole(trx, existing.id, role);
        out.push({ ...existing, org_role: role });
        if (existing.org_role !== role) await auditMember(trx, 'member.role', existing.id, ['organizationRole']);
        continue;
      }
      const user = await createUser(trx, ctx.clock, { email, orgId, orgRole: role });
      out.push(user);
      await auditMember(trx, 'member.add', user.id, ['email', 'organizationRole']);
      await inviteRepo.deleteInviteFor(trx, orgId, email);
    }
    return { users: out.map(userView) };
  });
  // A changed role must not wait for a cached key to expire.
  await principalsChanged(ctx.store.db);
  return answer;
}

/** Removes users from the organization: their keys stop working and their project roles go. */
export async function removeOrgUsers(ctx: AppContext, p: Principal, orgId: string, list: string[]) {
  ensureOrg(p, orgId);
  const emails = emailsOf(list, 'users');
  const answer = await ctx.store.db.transaction().execute(async (trx) => {
    const removed: string[] = [];
    for (const email of emails) {
      const user = await identityRepo.findUserByEmail(trx, email);
      if (!user || user.organization_id !== orgId) continue;
      if (user.org_role === 'owner') throw badRequest('the organization owner cannot be removed');
      await removeUser(trx, orgId, user);
      await audit(trx, ctx.clock, p, { operation: 'member.remove', targetType: 'user', targetId: user.id });
      removed.push(email);
    }
    return { users: removed, removed: removed.length };
  });
  // A removed user's key stops working now, not when a cached key expires.
  await principalsChanged(ctx.store.db);
  return answer;
}

async function removeUser(trx: Executor, orgId: string, user: UserRow): Promise<void> {
  await projectRepo.removeMemberFromOrg(trx, orgId, user.email);
  await identityRepo.deleteUserKeys(trx, user.id);
  await sessionRepo.deleteUserSignIn(trx, user.id);
  await identityRepo.deleteUser(trx, user.id);
}

export async function listInvites(ctx: AppContext, p: Principal, orgId: string) {
  ensureOrg(p, orgId);
  const rows = await inviteRepo.listOrgInvites(ctx.store.db, orgId);
  const invites = rows.map((r) => ({
    _id: r.id,
    email: r.email,
    organizationRole: r.organization_role,
    projectAssignments: JSON.parse(r.project_assignments) as unknown,
    createdBy: r.created_by,
    createdAt: r.created_at,
  }));
  return { invites, total: invites.length };
}

export interface InviteInput {
  to: string[];
  organizationRole?: AssignableOrgRole | undefined;
  projectAssignments?: { projectId: string; projectRole: string }[] | undefined;
}

/**
 * Records invites. Project roles are keyed by e-mail, so the assignments take effect at once:
 * the invited person has them as soon as their user exists (accept link, CLI or POST users).
 * Each invited person without an account gets a one-time accept link, answered to the caller
 * (only its hash is stored): the invitee opens it, sets a password and is signed in.
 */
export async function createInvites(
  ctx: AppContext,
  p: Principal,
  orgId: string,
  input: InviteInput,
  /** The address the links start with: the inviter's (http/link-base.ts). */
  linkBase = ctx.config.publicUrl,
) {
  ensureOrg(p, orgId);
  const emails = emailsOf(input.to, 'to');
  const assignments = input.projectAssignments ?? [];
  const now = new Date(ctx.clock.now()).toISOString();
  return ctx.store.db.transaction().execute(async (trx) => {
    for (const [i, a] of assignments.entries()) {
      if (!isProjectRole(a.projectRole)) {
        throw invalidField(`projectAssignments[${i}].projectRole`, 'must be one of Manager, Lead, Reviewer, Labeler');
      }
      await loadProject(trx, p, a.projectId, 'manage').catch(() => {
        throw invalidField(`projectAssignments[${i}].projectId`, 'no such project in this organization');
      });
    }
    const links: { email: string; url: string; expiresAt: string }[] = [];
    for (const email of emails) {
      const user = await identityRepo.findUserByEmail(trx, email);
      if (user && user.organization_id !== orgId) throw conflict(`${email} already belongs to another organization`);
      await inviteRepo.deleteInviteFor(trx, orgId, email);
      const inviteId = newId(ctx.clock.now());
      await inviteRepo.insertInvite(trx, {
        id: inviteId,
        organization_id: orgId,
        email,
        organization_role: input.organizationRole ?? 'member',
        project_assignments: JSON.stringify(assignments),
        created_by: p.email,
        created_at: now,
      });
      for (const a of assignments) {
        await projectRepo.upsertMembers(trx, a.projectId, [{ email, role: a.projectRole }], now);
      }
      await audit(trx, ctx.clock, p, {
        operation: 'invite.create',
        targetType: 'invite',
        targetId: inviteId,
        fields: ['email', 'organizationRole', ...(assignments.length ? ['projectAssignments'] : [])],
      });
      // A person who already has an account signs in as before (a forgotten password is a reset,
      // not an invite): an accept link could otherwise set another member's, or the owner's, password.
      if (!user) {
        const link = await createPasswordLink(trx, ctx, { purpose: 'invite', email, orgId, inviteId }, linkBase);
        links.push({ email, ...link });
      }
    }
    return { invited: emails.length, links };
  });
}

export async function deleteInvites(ctx: AppContext, p: Principal, orgId: string, list: string[]) {
  ensureOrg(p, orgId);
  const emails = emailsOf(list, 'to');
  if (emails.length === 0) return { deleted: 0 };
  return ctx.store.db.transaction().execute(async (trx) => {
    const ids = await inviteRepo.inviteIdsFor(trx, orgId, emails);
    if (ids.length === 0) return { deleted: 0 };
    await inviteRepo.deleteInvites(trx, ids);
    for (const id of ids)
      await audit(trx, ctx.clock, p, { operation: 'invite.delete', targetType: 'invite', targetId: id });
    return { deleted: ids.length };
  });
}

/** POST /project/{id}/assigned: gives each e-mail the role on the project (the route answers the project). */
export async function assignProjectMembers(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { assignees: string[]; role: string },
) {
  if (!isProjectRole(input.role)) throw invalidField('role', 'must be one of Manager, Lead, Reviewer, Labeler');
  const emails = emailsOf(input.assignees, 'assignees');
  const now = new Date(ctx.clock.now()).toISOString();
  const role = input.role;
  await ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'manage');
    await projectRepo.upsertMembers(
      trx,
      row.id,
      emails.map((email) => ({ email, role })),
      now,
    );
    // One record a person given the role (the e-mail names them: they may have no account yet).
    for (const email of new Set(emails)) {
      await audit(trx, ctx.clock, p, {
        operation: 'project.member.role',
        targetType: 'member',
        targetId: email,
        projectId: row.id,
        fields: ['projectRole'],
      });
    }
  });
}
