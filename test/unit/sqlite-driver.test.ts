import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import SQLite, { loadSqliteModule, sqliteModuleFor } from '../../src/store/sqlite/driver.js';

const require = createRequire(import.meta.url);

describe('the better-sqlite3 build for the runtime', () => {
  it('is 12 on Node 20 and 13 (Node-API) from Node 22 on', () => {
    expect(sqliteModuleFor('v20.20.2')).toBe('better-sqlite3');
    expect(sqliteModuleFor('20.11.0')).toBe('better-sqlite3');
    expect(sqliteModuleFor('22.0.0')).toBe('better-sqlite3-node22');
    expect(sqliteModuleFor('v24.21.0')).toBe('better-sqlite3-node22');
  });

  it('is the one this runtime loads, and it opens a database', () => {
    expect(SQLite).toBe(require(sqliteModuleFor(process.versions.node)));
    const db = new SQLite(':memory:');
    expect(db.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    db.close();
  });

  it('says to run npm install under this Node when the build is not installed', () => {
    expect(() => loadSqliteModule('better-sqlite3-not-installed')).toThrow(
      `better-sqlite3-not-installed is not installed for Node ${process.versions.node}: npm installs it under the Node that runs \`npm install\`, so run \`npm install\` again with this Node`,
    );
  });
});
