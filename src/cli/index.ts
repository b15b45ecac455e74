#!/usr/bin/env node
/**
 * The `annotary` command. This file only declares commands: each action imports its module when
 * it runs, so `annotary projects list` never loads the server, the store or the SDKs
 * (bench/cli-start.ts measures the start time).
 */
import nodeModule from 'node:module';
import { Command, CommanderError } from 'commander';
import { registerAdminCommands } from './admin.js';
import { registerBackupCommands } from './backup.js';
import { exitCodeOf, reportError } from './exit.js';
import { registerUserCommands } from './user-commands.js';

/**
 * Node 22.8 and later keep the code V8 compiled for each module on disk and reuse it at the next
 * start (under the system's temporary folder, or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off). Modules loaded after this line are cached: each command's own, the server's
 * chunks among them (most of its start-up); the declarations imported above are not. Node 20
 * has no such cache and starts as before (docs/operations.md).
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
 * The built command is bundled (scripts/bundle-cli.mjs), with linked source maps beside the
 * chunks. They are not enabled here: Node 20 reads and decodes every loaded chunk's map at load
 * (2.3 MB), which was a quarter of the server's start-up (docs/benchmarks.md, "Start-up, session
 * 8"), and logs and answers never carry stack traces (src/log-safe.ts). To map a crash's stack
 * to src/ lines, start with `NODE_OPTIONS=--enable-source-maps` (docs/operations.md).
 */
async function loadServe(): Promise<typeof import('./serve.js')> {
  return import('./serve.js');
}

program
  .command('serve')
  .description('run the API (and the job worker, unless ANNOTARY_RUN_WORKER=false)')
  .action(async () => (await loadServe()).serveCommand());
program
  .command('worker')
  .description('run only the job worker')
  .action(async () => (await loadServe()).workerCommand());
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
