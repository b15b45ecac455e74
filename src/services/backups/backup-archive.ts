/** What a backup archive holds, shared by `backup` and `restore`. */

export const MANIFEST = 'annotary-backup.json';
export const DB_ENTRY = 'annotary.db';
export const FILES_PREFIX = 'files/';
export const KEY_ENTRY = 'secret.key';
export const BACKUP_FORMAT = 1;

export interface BackupManifest {
  format: number;
  engine: 'sqlite';
  createdAt: string;
  /** The store's schema migrations at the time of the copy. */
  migrations: string[];
  files: number;
  /** The data folder's secret.key is inside (absent when the key comes from ANNOTARY_SECRET_KEY). */
  includesKey: boolean;
}

/** Why a PostgreSQL store is not backed up by `annotary backup`, and what to do instead. */
export const POSTGRES_ADVICE = [
  'This server keeps its data in PostgreSQL (DATABASE_URL): back the database up with',
  "PostgreSQL's own tools, which take a consistent copy while the servers run:",
  '',
  '  pg_dump --format=custom --file=annotary.dump "$DATABASE_URL"',
  '  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" annotary.dump',
  '',
  'and copy the file store (the files/ folder of ANNOTARY_DATA_DIR) and keep ANNOTARY_SECRET_KEY',
  'safe: without it the sealed secrets in the dump cannot be opened. See docs/operations.md.',
].join('\n');
