import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The better-sqlite3 build for this runtime. Node 20 loads better-sqlite3 12 (13 needs Node 22).
 * Node 22 and later load 13, installed as `better-sqlite3-node22`: 12 wraps its objects in Node's
 * own `ObjectWrap`, and from Node 24.19 a statement collected after the runtime's environment is
 * gone aborts the process (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`,
 * nodejs/node#65446); 13 is built on Node-API and ships its prebuilt binaries inside the registry
 * package. The two have the same API: import this module's default wherever `better-sqlite3`'s
 * would be.
 */
export function sqliteModuleFor(nodeVersion: string): 'better-sqlite3' | 'better-sqlite3-node22' {
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0]);
  return major >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3';
}

const require = createRequire(import.meta.url);

/**
 * Loads the build. 13 is an optional dependency that npm installs only under Node 22 or later
 * (its engines say so; under Node 20 npm skips it without a warning), so a checkout installed
 * under Node 20 and then run under a later Node lacks it: say what to do instead of "Cannot find
 * module".
 */
export function loadSqliteModule(name: string): typeof BetterSqlite3 {
  try {
    return require(name) as typeof BetterSqlite3;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(
      `${name} is not installed for Node ${process.versions.node}: npm installs it under the Node that runs ` +
        '`npm install`, so run `npm install` again with this Node',
      { cause: err },
    );
  }
}

// The assertion keeps the type's public name: without it the declaration build (tsc -p
// tsconfig.build.json) cannot name `BetterSqlite3.DatabaseConstructor` for this export (TS4023).
const SQLite = loadSqliteModule(sqliteModuleFor(process.versions.node)) as typeof BetterSqlite3;
// eslint-disable-next-line @typescript-eslint/no-namespace -- the types under the same name, as better-sqlite3's own
declare namespace SQLite {
  type Database = BetterSqlite3.Database;
  type Statement = BetterSqlite3.Statement;
  type Options = BetterSqlite3.Options;
}
export default SQLite;

/**
 * Whether the loaded build makes each statement's row objects from one object literal (13 does;
 * 12 sets their properties one at a time, which gives slow dictionary-mode objects for rows of
 * many columns, so the store makes 12's rows itself: `src/store/db.ts`).
 */
export const SQLITE_BUILDS_LITERALS = sqliteModuleFor(process.versions.node) !== 'better-sqlite3';
