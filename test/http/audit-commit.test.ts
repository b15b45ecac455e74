import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/services/audit/audit.service.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { callbackQueries } from '../../src/store/pg-callback-queries.js';
import { insertAuditRecord } from '../../src/store/repositories/audit.repository.js';
import type { Database } from '../../src/store/schema.js';
import { ENGINES, makeStore, TEST_DATABASE_URL, type TestStore } from '../helpers/stores.js';

/**
 * An audit record commits with its change or not at all. On PostgreSQL it is held until the
 * transaction's COMMIT and sent in the same round trip (src/store/pg-callback-queries.ts); these
 * tests hold it to the same promises as a record sent on its own, and count the round trips.
 */

const clock = { now: () => Date.now() };
const actor = { orgId: 'org-held', userId: 'u-1', keyId: 'key-1', address: '192.0.2.7' };
// Quotes, a backslash, a placeholder's text, a semicolon, a newline and a non-ASCII letter.
const AWKWARD = `it's a \\ $1 "x"; commit; --\nprojet é`;

describe.each(ENGINES)('audit records in the change transaction on %s', (engine) => {
  let store: TestStore;
  const records = (targetId: string) =>
    store.db.selectFrom('audit_log').selectAll().where('target_id', '=', targetId).execute();
  const orgName = async () =>
    (await store.db.selectFrom('organizations').select('name').where('id', '=', 'org-held').executeTakeFirstOrThrow())
      .name;

  beforeAll(async () => {
    store = await makeStore(engine);
    await store.db
      .insertInto('organizations')
      .values({ id: 'org-held', name: 'before', plan: 'free', rate_limit: 10, created_at: new Date().toISOString() })
      .execute();
  });
  afterAll(() => store.cleanup());

  it('commits the change and its record together, values written exactly', async () => {
    await store.db.transaction().execute(async (trx) => {
      await trx.updateTable('organizations').set({ name: 'committed' }).where('id', '=', 'org-held').execute();
      await audit(
        trx,
        clock,
        { ...actor, address: AWKWARD },
        {
          operation: 'organization.rename',
          targetType: 'organization',
          targetId: 'together',
          projectId: null,
          fields: ['name', AWKWARD],
        },
      );
      await audit(trx, clock, actor, { operation: 'second.record', targetType: 'organization', targetId: 'together' });
    });
    expect(await orgName()).toBe('committed');
    const rows = await records('together');
    expect(rows.map((r) => r.operation).sort()).toEqual(['organization.rename', 'second.record']);
    const first = rows.find((r) => r.operation === 'organization.rename')!;
    expect(first).toMatchObject({ address: AWKWARD, user_id: 'u-1', actor: 'key-1', project_id: null });
    expect(JSON.parse(first.fields)).toEqual([AWKWARD, 'name'].sort());
  });

  it('writes neither when the transaction fails after the record', async () => {
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.updateTable('organizations').set({ name: 'lost' }).where('id', '=', 'org-held').execute();
        await audit(trx, clock, actor, { operation: 'x', targetType: 'organization', targetId: 'thrown' });
        throw new Error('refused after the record');
      }),
    ).rejects.toThrow('refused after the record');
    expect(await orgName()).toBe('committed');
    expect(await records('thrown')).toEqual([]);
  });

  it('writes neither when the record itself cannot be written', async () => {
    const [existing] = await records('together');
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx.updateTable('organizations').set({ name: 'lost too' }).where('id', '=', 'org-held').execute();
        // The same id again: the record's INSERT fails on its key, so the change must not stay.
        await insertAuditRecord(trx, { ...existing!, target_id: 'duplicate' });
      }),
    ).rejects.toThrow();
    expect(await orgName()).toBe('committed');
    expect(await records('duplicate')).toEqual([]);
  });

  it('writes at once outside a transaction', async () => {
    await audit(store.db, clock, actor, { operation: 'alone', targetType: 'organization', targetId: 'alone' });
    expect(await records('alone')).toHaveLength(1);
  });
});

describe.skipIf(!ENGINES.includes('postgres'))('held audit records on PostgreSQL', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let pool: pg.Pool;
  let db: Kysely<Database>;
  /** Every statement text sent to the server, one entry per round trip. */
  const sent: string[] = [];

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1, options: `-c search_path=${schema}` });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0];
        sent.push(typeof first === 'string' ? first : (first as { text: string }).text);
        return query(...args);
      };
    });
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: callbackQueries(pool) }) });
    await migrateToLatest({ db, engine: 'postgres' });
    await db
      .insertInto('organizations')
      .values({ id: 'org-held', name: 'before', plan: 'free', rate_limit: 10, created_at: new Date().toISOString() })
      .execute();
  });
  afterAll(async () => {
    await db.destroy();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('sends the record with the COMMIT: no round trip of its own, unseen before it', async () => {
    sent.length = 0;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('organizations').set({ name: 'renamed' }).where('id', '=', 'org-held').execute();
      await audit(trx, clock, actor, { operation: 'org.rename', targetType: 'organization', targetId: 'trip' });
      // Not sent yet: the transaction does not see it.
      const seen = await trx.selectFrom('audit_log').select('id').where('target_id', '=', 'trip').execute();
      expect(seen).toEqual([]);
    });
    expect(sent.map((s) => s.split('\n').at(-1)!.trim().split(' ')[0]!.toLowerCase())).toEqual([
      'begin',
      'update',
      'select',
      'commit',
    ]);
    expect(sent[3]).toMatch(/^insert into "audit_log"/);
    expect(await db.selectFrom('audit_log').select('id').where('target_id', '=', 'trip').execute()).toHaveLength(1);
  });

  it('keeps records held before a savepoint and drops those after a rollback to it', async () => {
    const trx = await db.startTransaction().execute();
    await audit(trx, clock, actor, { operation: 'kept', targetType: 'organization', targetId: 'savepoint-kept' });
    const inner = await trx.savepoint('inner').execute();
    await audit(inner, clock, actor, { operation: 'dropped', targetType: 'organization', targetId: 'savepoint-gone' });
    const back = await inner.rollbackToSavepoint('inner').execute();
    await back.commit().execute();
    expect(
      await db.selectFrom('audit_log').select('id').where('target_id', '=', 'savepoint-kept').execute(),
    ).toHaveLength(1);
    expect(await db.selectFrom('audit_log').select('id').where('target_id', '=', 'savepoint-gone').execute()).toEqual(
      [],
    );
  });

  it('holds nothing past a rollback: the next transaction commits only its own record', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await audit(trx, clock, actor, { operation: 'rolled', targetType: 'organization', targetId: 'rolled-back' });
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    await db.transaction().execute(async (trx) => {
      await audit(trx, clock, actor, { operation: 'next', targetType: 'organization', targetId: 'next-one' });
    });
    expect(await db.selectFrom('audit_log').select('id').where('target_id', '=', 'rolled-back').execute()).toEqual([]);
    expect(await db.selectFrom('audit_log').select('id').where('target_id', '=', 'next-one').execute()).toHaveLength(1);
  });
});
