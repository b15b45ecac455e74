import { loadConfig } from '../config.js';
import { type AppContext, createContext, createLogger } from '../context.js';
import { audit, cliActor } from '../services/audit/audit.service.js';
import { isOrgRole } from '../access.js';
import {
  createOrganization,
  createUser,
  issueApiKey,
  normalizeEmail,
  setOrganizationPlan,
} from '../services/identity/identity.service.js';
import { resetLink, resetPasswordTo } from '../services/identity/password-reset.service.js';
import { findUserByEmail } from '../store/repositories/identity.repository.js';
import { migrateToLatest } from '../store/migrate.js';
import { openPrincipalCache } from '../services/identity/principal-cache.js';
import { upgradeStoredData } from '../upgrades.js';

async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const ctx = await createContext(config, { log: createLogger(config, 'stderr'), oneShot: true });
  // It answers no requests, so it keeps no API keys; with Redis, the changes it makes to keys,
  // users and plans are announced to the running processes through this cache.
  const principals = await openPrincipalCache(ctx, { oneShot: true });
  try {
    await upgradeStoredData(ctx);
    return await fn(ctx);
  } finally {
    await principals.close();
    await ctx.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** The actions of the administration commands (src/cli/admin.ts declares them). */

export const migrate = () =>
  withContext(async (ctx) => {
    // createContext already migrated; say what the store is at.
    print({ store: ctx.store.engine, pending: await migrateToLatest(ctx.store) });
  });

export const listOrgs = () =>
  withContext(async (ctx) => print(await ctx.store.db.selectFrom('organizations').selectAll().execute()));

export const createOrg = (o: { name: string; plan?: string }) =>
  withContext(async (ctx) => {
    const org = await createOrganization(ctx.store.db, ctx.clock, o.name, ctx.config.defaultPlan);
    if (o.plan) await setOrganizationPlan(ctx.store.db, org.id, o.plan);
    print({ ...org, plan: o.plan ?? org.plan });
  });

export const setPlan = (orgId: string, plan: string, o: { limit?: number }) =>
  withContext(async (ctx) => {
    await setOrganizationPlan(ctx.store.db, orgId, plan, o.limit);
    print({ organization: orgId, plan, limit: o.limit ?? null });
  });

export const createUserCommand = (o: { email: string; org?: string; role?: string; key?: boolean }) =>
  withContext(async (ctx) => {
    const db = ctx.store.db;
    const email = normalizeEmail(o.email);
    const invite = await db.selectFrom('invites').selectAll().where('email', '=', email).executeTakeFirst();
    const firstOrg = await db.selectFrom('organizations').select('id').orderBy('created_at').executeTakeFirst();
    const orgId = o.org ?? invite?.organization_id ?? firstOrg?.id;
    if (!orgId) throw new Error('no organization: create one with `annotary orgs create`');
    const role = o.role ?? invite?.organization_role ?? 'member';
    if (!isOrgRole(role)) throw new Error('--role must be owner, admin or member');
    const user = await db.transaction().execute(async (trx) => {
      const made = await createUser(trx, ctx.clock, { email, orgId, orgRole: role });
      await trx.deleteFrom('invites').where('email', '=', email).where('organization_id', '=', orgId).execute();
      await audit(trx, ctx.clock, cliActor(orgId), {
        operation: 'member.add',
        targetType: 'user',
        targetId: made.id,
        fields: ['email', 'organizationRole'],
      });
      return made;
    });
    const apiKey = o.key ? await issueApiKey(db, ctx.clock, user.id, undefined, cliActor(orgId)) : undefined;
    print({ user: { id: user.id, email: user.email, organization: orgId, role }, ...(apiKey ? { apiKey } : {}) });
  });

export const createKey = (o: { email: string }) =>
  withContext(async (ctx) => {
    const user = await findUserByEmail(ctx.store.db, normalizeEmail(o.email));
    if (!user) throw new Error(`no user with e-mail ${o.email}`);
    const by = cliActor(user.organization_id);
    print({ email: user.email, apiKey: await issueApiKey(ctx.store.db, ctx.clock, user.id, undefined, by) });
  });

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export const resetPassword = (o: { email: string; stdin?: boolean }) =>
  withContext(async (ctx) => {
    if (!o.stdin) {
      const link = await resetLink(ctx, o.email);
      print({ email: link.email, link: link.url, expiresAt: link.expiresAt });
      return;
    }
    const password = (await readStdin()).replace(/\r?\n$/, '');
    print({ ...(await resetPasswordTo(ctx, o.email, password)), password: 'set', sessions: 'ended' });
  });
