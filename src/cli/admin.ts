import type { Command } from 'commander';
import { loadConfig, PLANS } from '../config.js';
import { type AppContext, createContext, createLogger } from '../context.js';
import { isOrgRole } from '../services/identity/access.js';
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

async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const ctx = await createContext(config, { log: createLogger(config, 'stderr') });
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Administration commands: they work on the store directly, with no API key. */
export function registerAdminCommands(program: Command, positiveInt: (v: string) => number): void {
  program
    .command('migrate')
    .description('bring the store to the latest schema (the server also does this at start)')
    .action(() =>
      withContext(async (ctx) => {
        // createContext already migrated; say what the store is at.
        print({ store: ctx.store.engine, pending: await migrateToLatest(ctx.store) });
      }),
    );

  const orgs = program.command('orgs').description('organizations');
  orgs
    .command('list')
    .action(() =>
      withContext(async (ctx) => print(await ctx.store.db.selectFrom('organizations').selectAll().execute())),
    );
  orgs
    .command('create')
    .requiredOption('--name <name>', 'display name')
    .option('--plan <plan>', `one of ${PLANS.join(', ')}`)
    .action((o: { name: string; plan?: string }) =>
      withContext(async (ctx) => {
        const org = await createOrganization(ctx.store.db, ctx.clock, o.name, ctx.config.defaultPlan);
        if (o.plan) await setOrganizationPlan(ctx.store.db, org.id, o.plan);
        print({ ...org, plan: o.plan ?? org.plan });
      }),
    );
  orgs
    .command('plan <orgId> <plan>')
    .description('set the rate-limit plan; enterprise takes --limit requests per minute')
    .option('--limit <n>', 'requests per minute (enterprise)', positiveInt)
    .action((orgId: string, plan: string, o: { limit?: number }) =>
      withContext(async (ctx) => {
        await setOrganizationPlan(ctx.store.db, orgId, plan, o.limit);
        print({ organization: orgId, plan, limit: o.limit ?? null });
      }),
    );

  const users = program.command('users').description('users');
  users
    .command('create')
    .requiredOption('--email <email>', 'e-mail address (the login)')
    .option('--org <orgId>', 'organization id (default: the invite for this e-mail, else the first organization)')
    .option('--role <role>', 'owner, admin or member (default: the invite role, else member)')
    .option('--key', 'also make an API key and print it once')
    .action((o: { email: string; org?: string; role?: string; key?: boolean }) =>
      withContext(async (ctx) => {
        const db = ctx.store.db;
        const email = normalizeEmail(o.email);
        const invite = await db.selectFrom('invites').selectAll().where('email', '=', email).executeTakeFirst();
        const firstOrg = await db.selectFrom('organizations').select('id').orderBy('created_at').executeTakeFirst();
        const orgId = o.org ?? invite?.organization_id ?? firstOrg?.id;
        if (!orgId) throw new Error('no organization: create one with `annotary orgs create`');
        const role = o.role ?? invite?.organization_role ?? 'member';
        if (!isOrgRole(role)) throw new Error('--role must be owner, admin or member');
        const user = await createUser(db, ctx.clock, { email, orgId, orgRole: role });
        await db.deleteFrom('invites').where('email', '=', email).where('organization_id', '=', orgId).execute();
        const apiKey = o.key ? await issueApiKey(db, ctx.clock, user.id) : undefined;
        print({ user: { id: user.id, email: user.email, organization: orgId, role }, ...(apiKey ? { apiKey } : {}) });
      }),
    );

  users
    .command('password')
    .description("reset a user's console password: prints a one-time link, or sets the password read from stdin")
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--stdin', 'read the new password from standard input (its last line break is dropped)')
    .action((o: { email: string; stdin?: boolean }) =>
      withContext(async (ctx) => {
        if (!o.stdin) {
          const link = await resetLink(ctx, o.email);
          print({ email: link.email, link: link.url, expiresAt: link.expiresAt });
          return;
        }
        const password = (await readStdin()).replace(/\r?\n$/, '');
        print({ ...(await resetPasswordTo(ctx, o.email, password)), password: 'set', sessions: 'ended' });
      }),
    );

  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .description("make a new API key for a user (revokes the user's previous key) and print it once")
    .requiredOption('--email <email>', "the user's e-mail")
    .action((o: { email: string }) =>
      withContext(async (ctx) => {
        const user = await findUserByEmail(ctx.store.db, normalizeEmail(o.email));
        if (!user) throw new Error(`no user with e-mail ${o.email}`);
        print({ email: user.email, apiKey: await issueApiKey(ctx.store.db, ctx.clock, user.id) });
      }),
    );
}
