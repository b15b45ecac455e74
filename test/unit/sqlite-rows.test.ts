import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import SQLite from '../../src/store/sqlite/driver.js';

const opened: { store: Store; dir: string }[] = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A store on a file with a table of every kind of value, and better-sqlite3's own connection to it. */
async function storeWithValues() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-rows-'));
  const file = path.join(dir, 'rows.db');
  const store = await openStore({ sqliteFile: file });
  opened.push({ store, dir });
  await sql`CREATE TABLE v (id INTEGER PRIMARY KEY, n INTEGER, r REAL, t TEXT, b BLOB, z TEXT)`.execute(store.db);
  await sql`INSERT INTO v (n, r, t, b, z) VALUES (42, 2.5, 'é ✓', x'00ff10', NULL), (-7, 0, '', x'', 'x')`.execute(
    store.db,
  );
  const plain = new SQLite(file, { readonly: true });
  return { store, plain };
}

describe("the store's SQLite rows", () => {
  it('are the objects better-sqlite3 makes, keys in the same order, for every kind of value', async () => {
    const { store, plain } = await storeWithValues();
    const statements = [
      'SELECT * FROM v ORDER BY id',
      'SELECT id, t AS "a b", n + 1 AS "count(*)", z FROM v ORDER BY id',
      // Two columns of one name: the later one wins, as in better-sqlite3's objects.
      'SELECT n AS x, t AS x FROM v ORDER BY id',
      // A column named like the prototype, with a text value: neither keeps it, as an assignment.
      'SELECT id, t AS "__proto__" FROM v ORDER BY id',
      'SELECT * FROM v WHERE id = -1',
    ];
    try {
      for (const text of statements) {
        const ours = (await sql.raw(text).execute(store.db)).rows as Record<string, unknown>[];
        const theirs = plain.prepare(text).all() as Record<string, unknown>[];
        expect(ours, text).toEqual(theirs);
        expect(
          ours.map((r) => Object.keys(r)),
          text,
        ).toEqual(theirs.map((r) => Object.keys(r)));
        for (const row of ours) expect(Object.getPrototypeOf(row), text).toBe(Object.prototype);
      }
      const [first] = (await sql.raw('SELECT * FROM v ORDER BY id').execute(store.db)).rows as Record<
        string,
        unknown
      >[];
      expect(first).toEqual({ id: 1, n: 42, r: 2.5, t: 'é ✓', b: Buffer.from([0, 255, 16]), z: null });
    } finally {
      plain.close();
    }
  });

  it('come the same through a stream, a RETURNING clause and the same statement run again', async () => {
    const { store } = await storeWithValues();
    const streamed: unknown[] = [];
    const db = store.db as unknown as Kysely<{ v: { id: number; t: string } }>;
    for await (const row of db.selectFrom('v').select(['id', 't']).orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([
      { id: 1, t: 'é ✓' },
      { id: 2, t: '' },
    ]);
    const inserted = await sql`INSERT INTO v (n) VALUES (${5}), (${6}) RETURNING id, n`.execute(store.db);
    expect(inserted.rows).toEqual([
      { id: 3, n: 5 },
      { id: 4, n: 6 },
    ]);
    const updated = await sql`UPDATE v SET n = n + 1 WHERE id > ${2}`.execute(store.db);
    expect(updated.numAffectedRows).toBe(2n);
    const read = (id: number) => sql`SELECT n FROM v WHERE id = ${id}`.execute(store.db).then((r) => r.rows);
    expect(await read(3)).toEqual([{ n: 6 }]);
    expect(await read(4)).toEqual([{ n: 7 }]);
  });

  it('follow schema changes made on the store or by another process, whatever they keep', async () => {
    const { store, plain } = await storeWithValues();
    plain.close();
    const other = new SQLite(path.join(opened.at(-1)!.dir, 'rows.db'));
    const read = async () => (await sql`SELECT * FROM v WHERE id = ${1}`.execute(store.db)).rows[0];
    const blob = Buffer.from([0, 255, 16]);
    try {
      expect(await read()).toEqual({ id: 1, n: 42, r: 2.5, t: 'é ✓', b: blob, z: null });
      // A rename keeps the number of columns: only the names tell it apart.
      await sql`/* a migration */ ALTER TABLE v RENAME COLUMN t TO title`.execute(store.db);
      expect(await read()).toEqual({ id: 1, n: 42, r: 2.5, title: 'é ✓', b: blob, z: null });
      await sql`ALTER TABLE v DROP COLUMN r`.execute(store.db);
      expect(await read()).toEqual({ id: 1, n: 42, title: 'é ✓', b: blob, z: null });
      other.exec("ALTER TABLE v ADD COLUMN extra TEXT DEFAULT 'from elsewhere'");
      expect(await read()).toEqual({ id: 1, n: 42, title: 'é ✓', b: blob, z: null, extra: 'from elsewhere' });
      other.exec('ALTER TABLE v RENAME COLUMN n TO amount');
      expect(await read()).toEqual({ id: 1, amount: 42, title: 'é ✓', b: blob, z: null, extra: 'from elsewhere' });
      // A table rebuilt elsewhere with the same columns in another order.
      other.exec(`CREATE TABLE v2 (id INTEGER PRIMARY KEY, extra TEXT, z TEXT, b BLOB, title TEXT, amount INTEGER);
        INSERT INTO v2 SELECT id, extra, z, b, title, amount FROM v; DROP TABLE v; ALTER TABLE v2 RENAME TO v;`);
      const rebuilt = await read();
      expect(rebuilt).toEqual({ id: 1, extra: 'from elsewhere', z: null, b: blob, title: 'é ✓', amount: 42 });
      expect(Object.keys(rebuilt as object)).toEqual(['id', 'extra', 'z', 'b', 'title', 'amount']);
      // Inside a transaction too.
      await store.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE v RENAME COLUMN extra TO origin`.execute(trx);
        expect((await sql`SELECT * FROM v WHERE id = ${1}`.execute(trx)).rows[0]).toMatchObject({
          origin: 'from elsewhere',
        });
      });
    } finally {
      other.close();
    }
  });
});
