/**
 * Runs before every test file (vitest `setupFiles`): the suite sees a machine where nobody has
 * used Annotary. A developer who ran `annotary login`, exported `ANNOTARY_API_KEY` or
 * `DATABASE_URL` for their own server, or keeps cloud credentials in `~/.aws` would otherwise
 * hand all of it to the client, the CLI and every server a test spawns (they inherit
 * `process.env`, and the client finds the login profile through `os.homedir()`).
 *
 * HOME and XDG_CONFIG_HOME point at a fresh folder of this file's own, removed after it; the
 * variables Annotary and its cloud SDKs read are dropped. Tests that want one set it
 * explicitly, as they always did. The variables that steer the suite itself stay.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** Read by the tests, not by Annotary: which engines, which browser, how hard to fuzz. */
const SUITE_VARIABLES = new Set([
  'ANNOTARY_TEST_ENGINES',
  'ANNOTARY_CHROMIUM',
  'ANNOTARY_FUZZ_FULL',
  'ANNOTARY_FUZZ_SEED',
]);

/** What the server, the command, the client (docs/operations.md, README) and the cloud SDKs read. */
const PRODUCT_VARIABLES = new Set([
  'DATABASE_URL',
  'REDIS_URL',
  'HOST',
  'PORT',
  'LOG_LEVEL',
  'NODE_COMPILE_CACHE',
  'NODE_DISABLE_COMPILE_CACHE',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
]);
const PRODUCT_PREFIXES = ['ANNOTARY_', 'AWS_', 'AZURE_'];

function isProductVariable(name: string): boolean {
  if (SUITE_VARIABLES.has(name)) return false;
  return PRODUCT_VARIABLES.has(name) || PRODUCT_PREFIXES.some((prefix) => name.startsWith(prefix));
}

for (const name of Object.keys(process.env)) {
  if (isProductVariable(name)) delete process.env[name];
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-test-home-'));
process.env.HOME = home;
process.env.XDG_CONFIG_HOME = path.join(home, '.config');

afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
});
