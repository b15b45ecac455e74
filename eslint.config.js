import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Services compose repository calls; every SQL statement lives in src/store/repositories/
 * (docs/architecture.md, "SQL lives in the store"). These files still build queries themselves
 * while their statements move; the list only shrinks.
 */
export const SERVICES_WITH_SQL_PENDING = [];

const NO_SQL_HERE = 'services hold no SQL: add a named method to a repository in src/store/repositories/ and call it';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS configs of tools (dependency-cruiser reads `.cjs`).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // No query builder, `sql` template or prepared statement in a service: SQL lives in the store.
    files: ['src/services/**/*.ts'],
    ignores: SERVICES_WITH_SQL_PENDING,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: NO_SQL_HERE }],
          patterns: [
            { group: ['**/store/prepared-query.js'], importNames: ['preparedQuery', 'inIdList'], message: NO_SQL_HERE },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
          message: NO_SQL_HERE,
        },
        { selector: 'TaggedTemplateExpression[tag.name="sql"]', message: NO_SQL_HERE },
      ],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
