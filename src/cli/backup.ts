import path from 'node:path';
import type { Command } from 'commander';

/** The store's code loads only when `backup` or `restore` runs (see index.ts). */
async function load() {
  const [{ loadConfig }, { POSTGRES_ADVICE }, { restoreSqlite }, { backupSqlite }] = await Promise.all([
    import('../config.js'),
    import('../services/backups/backup-archive.js'),
    import('../services/backups/restore.js'),
    import('../services/backups/sqlite-backup.js'),
  ]);
  return { loadConfig, POSTGRES_ADVICE, restoreSqlite, backupSqlite };
}

/** `backup` and `restore` of the embedded store (see docs/operations.md). */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup <file>')
    .description('write a consistent copy of the embedded store and its files into one archive, while servers run')
    .action(async (file: string) => {
      const { loadConfig, POSTGRES_ADVICE, backupSqlite } = await load();
      const config = loadConfig();
      if (config.databaseUrl) {
        process.stderr.write(`${POSTGRES_ADVICE}\n`);
        process.exitCode = 2;
        return;
      }
      const target = path.resolve(file);
      const { manifest, bytes } = await backupSqlite(config.dataDir, target);
      const key = manifest.includesKey ? ', with the secret key (keep the archive safe)' : '';
      process.stdout.write(`backed up ${config.dataDir} to ${target}: ${bytes} bytes, ${manifest.files} files${key}\n`);
    });
  program
    .command('restore <file>')
    .description('restore an archive of `backup` into the data folder (servers stopped)')
    .option('--force', 'replace the stopped store that is in the data folder')
    .action(async (file: string, o: { force?: boolean }) => {
      const { loadConfig, POSTGRES_ADVICE, restoreSqlite } = await load();
      const config = loadConfig();
      if (config.databaseUrl) {
        process.stderr.write(`${POSTGRES_ADVICE}\n`);
        process.exitCode = 2;
        return;
      }
      const manifest = await restoreSqlite(path.resolve(file), config.dataDir, { force: o.force === true });
      process.stdout.write(
        `restored the backup of ${manifest.createdAt} into ${config.dataDir} (${manifest.files} files)` +
          (manifest.includesKey
            ? ''
            : '; it holds no secret key: start with the ANNOTARY_SECRET_KEY it was made with') +
          '\n',
      );
    });
}
