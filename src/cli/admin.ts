import type { Command } from 'commander';
import { positiveInt } from './args.js';

type Actions = typeof import('./admin-actions.js');

/** The store and the server's code load only when an administration command runs. */
function run<A extends unknown[]>(pick: (m: Actions) => (...args: A) => Promise<void>) {
  return async (...args: A) => pick(await import('./admin-actions.js'))(...args);
}

/** Administration commands: they work on the store directly (DATABASE_URL / ANNOTARY_DATA_DIR), with no API key. */
export function registerAdminCommands(program: Command): void {
  program
    .command('migrate')
    .description('bring the store to the latest schema (the server also does this at start)')
    .action(run((m) => m.migrate));

  const orgs = program.command('orgs').description('organizations (on the store)');
  orgs
    .command('list')
    .description('every organization')
    .action(run((m) => m.listOrgs));
  orgs
    .command('create')
    .description('a new organization')
    .requiredOption('--name <name>', 'display name')
    .option('--plan <plan>', 'standard, professional or enterprise')
    .action(run((m) => m.createOrg));
  orgs
    .command('plan <orgId> <plan>')
    .description('set the rate-limit plan; enterprise takes --limit requests per minute')
    .option('--limit <n>', 'requests per minute (enterprise)', positiveInt)
    .action(run((m) => m.setPlan));

  const users = program.command('users').description('users (on the store)');
  users
    .command('create')
    .description('add a user, optionally with an API key printed once')
    .requiredOption('--email <email>', 'e-mail address (the login)')
    .option('--org <orgId>', 'organization id (default: the invite for this e-mail, else the first organization)')
    .option('--role <role>', 'owner, admin or member (default: the invite role, else member)')
    .option('--key', 'also make an API key and print it once')
    .action(run((m) => m.createUserCommand));

  users
    .command('password')
    .description("reset a user's console password: prints a one-time link, or sets the password read from stdin")
    .requiredOption('--email <email>', "the user's e-mail")
    .option('--stdin', 'read the new password from standard input (its last line break is dropped)')
    .action(run((m) => m.resetPassword));

  const keys = program.command('keys').description('API keys (on the store)');
  keys
    .command('create')
    .description("make a new API key for a user (revokes the user's previous key) and print it once")
    .requiredOption('--email <email>', "the user's e-mail")
    .action(run((m) => m.createKey));
}
