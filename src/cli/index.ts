#!/usr/bin/env node
/**
 * The `annotary` command. This file only declares commands: each action imports its module when
 * it runs, so `annotary projects list` never loads the server, the store or the SDKs
 * (bench/cli-start.ts measures the start time).
 */
import fs from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerAdminCommands } from './admin.js';
import { registerBackupCommands } from './backup.js';
import { exitCodeOf, reportError } from './exit.js';
import { registerUserCommands } from './user-commands.js';

/**
 * Node 22.8 and later keep the code V8 compiled for each module on disk and reuse it at the next
 * start (under the system's temporary folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off). Modules loaded after this line are cached: each command's own, the server's
 * bundle among them (most of its start-up); the declarations imported above are not. Node 20 has
 * no such cache: the server's bundle has one of its own there (below, docs/operations.md).
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const program = new Command()
  .name('annotary')
  .description(
    'Annotary: self-hosted annotation-platform server (REST API v2).\n\n' +
      'Daily work (over the API, with the key `annotary login` stored or ANNOTARY_API_KEY):\n' +
      '  login, projects, tasks, metrics, import, export\n' +
      'Running and administering a server (on its store, no key): serve, worker, migrate, orgs, users, keys, backup, restore',
  )
  .exitOverride()
  .showHelpAfterError()
  .configureHelp({ sortSubcommands: false, showGlobalOptions: true });

/**
 * The built command is bundled (scripts/bundle-cli.mjs). `serve` and `worker` load the server as
 * one CommonJS bundle beside this file, `server.cjs`, whose compiled code is kept on disk for the
 * next start (docs/operations.md, "The server's code cache"): on Node 22.8 and later by Node's
 * module compile cache (turned on above), on Node 20 by src/cli/code-cache.ts, in `.code-cache`
 * beside the bundle, else in a folder of this user's under the system's temporary folder, or in
 * ANNOTARY_CODE_CACHE_DIR. NODE_DISABLE_COMPILE_CACHE=1 turns both off.
 *
 * Source maps ship beside the bundle but are not enabled here: Node 20 reads and decodes the map
 * of everything it loads, and logs and answers never carry stack traces (src/log-safe.ts). Started
 * with `NODE_OPTIONS=--enable-source-maps`, the bundle is loaded by Node's own loader, which maps
 * a crash's stack to src/ lines (docs/operations.md). Run from the sources (no bundle beside this
 * file), the server's modules are imported as they are.
 */
type ServeModule = typeof import('./serve.js');

const nodeCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Where Node 20 keeps the server's code cache: the first of these that can hold it. */
function codeCacheFolders(): string[] {
  const chosen = process.env.ANNOTARY_CODE_CACHE_DIR;
  if (chosen) return [chosen];
  const user = process.getuid?.() ?? 'user';
  return [path.join(import.meta.dirname, '.code-cache'), path.join(os.tmpdir(), `annotary-code-cache-${user}`)];
}

async function loadServe(): Promise<{ commands: ServeModule; started: () => void }> {
  const bundle = path.join(import.meta.dirname, 'server.cjs');
  if (!fs.existsSync(bundle)) return { commands: await import('./serve.js'), started: () => {} };
  const nodeLoader =
    nodeCompileCache ||
    process.sourceMapsEnabled ||
    process.platform === 'win32' ||
    process.env.NODE_DISABLE_COMPILE_CACHE === '1';
  if (nodeLoader) return { commands: createRequire(import.meta.url)(bundle) as ServeModule, started: () => {} };
  const { loadWithCodeCache } = await import('./code-cache.js');
  const loaded = loadWithCodeCache<ServeModule>(bundle, codeCacheFolders());
  return {
    commands: loaded.exports,
    // Written a second after the start, so the code of the first requests is in it too.
    started: () => void setTimeout(() => loaded.save(), 1000).unref(),
  };
}

async function runServe(command: 'serveCommand' | 'workerCommand'): Promise<void> {
  const { commands, started } = await loadServe();
  await commands[command]();
  started();
}

program
  .command('serve')
  .description('run the API (and the job worker, unless ANNOTARY_RUN_WORKER=false)')
  .action(() => runServe('serveCommand'));
program
  .command('worker')
  .description('run only the job worker')
  .action(() => runServe('workerCommand'));
registerAdminCommands(program);
registerBackupCommands(program);
registerUserCommands(program);

program.parseAsync(process.argv).then(
  () => {
    // Commands that finish leave no work behind; serve and worker keep the loop alive themselves.
    if (process.exitCode === undefined) process.exitCode = 0;
  },
  (err: unknown) => {
    if (err instanceof CommanderError) {
      // Commander already printed the message (or the help): 0 for help and version, else usage.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    reportError(err);
    process.exitCode = exitCodeOf(err);
  },
);
