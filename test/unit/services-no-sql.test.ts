import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The config is plain JavaScript: read by its address, its allow-list typed here.
const config = pathToFileURL(path.resolve('eslint.config.js')).href;
const { SERVICES_WITH_SQL_PENDING } = (await import(config)) as { SERVICES_WITH_SQL_PENDING: string[] };

/**
 * Services hold no SQL (docs/architecture.md): the lint rule of eslint.config.js refuses a query
 * builder call, the `sql` template and kysely itself in src/services/, but for the files its
 * allow-list still names. This holds the rule to what it promises and the list to the code.
 */
const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|sql`|from 'kysely'/;

const probe = `import { sql } from 'kysely';
import { preparedQuery } from '../../store/prepared-query.js';
import type { Executor } from '../../store/db.js';

export async function probe(db: Executor) {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ name: 'x' }).execute();
  });
  return [await db.selectFrom('users').selectAll().execute(), sql\`select 1\`, preparedQuery];
}
`;

async function problems(filePath: string, text: string) {
  const eslint = new ESLint();
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).map((m) => `${m.line}:${m.ruleId ?? ''}`);
}

describe('services hold no SQL', () => {
  it('refuses kysely, prepared statements, query builder calls and sql templates in a service file', async () => {
    expect(await problems('src/services/identity/probe.ts', probe)).toEqual([
      '1:no-restricted-imports',
      '2:no-restricted-imports',
      '7:no-restricted-syntax',
      '9:no-restricted-syntax',
      '9:no-restricted-syntax',
    ]);
  });

  it('lets a repository build its statements', async () => {
    const repository = probe.replaceAll('../../store/', '../');
    expect(await problems('src/store/repositories/probe.repository.ts', repository)).toEqual([]);
  });

  it('names in its allow-list only files that exist and still hold SQL', () => {
    for (const file of SERVICES_WITH_SQL_PENDING) {
      expect(fs.existsSync(file), `${file} is gone: take it off SERVICES_WITH_SQL_PENDING`).toBe(true);
      expect(SQL.test(fs.readFileSync(file, 'utf8')), `${file} holds no SQL now: take it off the list`).toBe(true);
    }
  });
});
