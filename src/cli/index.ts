#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../config.js';
import { registerAdminCommands } from './admin.js';
import { registerBackupCommands } from './backup.js';
import { serveCommand, workerCommand } from './serve.js';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

const program = new Command()
  .name('annotary')
  .description('Annotary: self-hosted annotation-platform server (REST API v2)')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the API (and the job worker, unless ANNOTARY_RUN_WORKER=false)')
  .action(() => serveCommand());
program
  .command('worker')
  .description('run only the job worker')
  .action(() => workerCommand());
registerAdminCommands(program, positiveInt);
registerBackupCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
  } else {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
