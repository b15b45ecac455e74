import type { Kysely } from 'kysely';

/*
 * Password sign-in per organization: `organizations.password_sign_in` (1 allows e-mail and
 * password, 0 leaves single sign-on and API keys). `users.joined_by_invite` marks people whose
 * account an invite made: single sign-on does not refuse them for groups that map to no role.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('password_sign_in', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('joined_by_invite', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('joined_by_invite').execute();
  await db.schema.alterTable('organizations').dropColumn('password_sign_in').execute();
}
