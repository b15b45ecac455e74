import type { Kysely } from 'kysely';

// Written against Kysely<unknown>: a migration must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('storages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('s3_access_type', 'text')
    .addColumn('s3_role_arn', 'text')
    .addColumn('s3_external_id', 'text')
    .addColumn('s3_user_arn', 'text')
    .addColumn('host', 'text')
    .addColumn('azure_auth_type', 'text')
    .addColumn('azure_tenant_id', 'text')
    .addColumn('azure_client_id', 'text')
    .addColumn('public_key', 'text')
    .addColumn('use_accelerate_endpoint', 'integer', (c) => c.notNull().defaultTo(0))
    // Sealed JSON of the write-only fields (privateKey, credentials, azureClientSecret).
    .addColumn('secrets', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('storages_org_created')
    .on('storages')
    .columns(['organization_id', 'deleted', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('storages').execute();
}
