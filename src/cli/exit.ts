/** Exit codes: 0 ok, 1 the work failed (API, network, data), 2 the command was used wrongly. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A mistake in how the command was called (missing file, bad option value): exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface Named {
  name?: unknown;
  message?: unknown;
}

function named(err: unknown): Named {
  return typeof err === 'object' && err !== null ? (err as Named) : {};
}

export function exitCodeOf(err: unknown): number {
  const name = named(err).name;
  // The client's configuration mistakes (unknown deployment, no key, bad URL) are the caller's
  // to fix. A server's bad environment (ConfigError) is a failed start: 1, as it always was.
  if (name === 'UsageError' || name === 'AnnotaryConfigError') return EXIT_USAGE;
  return EXIT_FAILED;
}

export function reportError(err: unknown): void {
  const e = named(err);
  const message = typeof e.message === 'string' ? e.message : String(err);
  const prefix = e.name === 'ConfigError' ? 'configuration error' : 'error';
  process.stderr.write(`${prefix}: ${message}\n`);
  const fields = (err as { fieldErrors?: { field: string; message: string }[] }).fieldErrors;
  for (const f of Array.isArray(fields) ? fields : []) {
    // The envelope's message often is the first field error already.
    if (`${f.field}: ${f.message}` !== message) process.stderr.write(`  ${f.field}: ${f.message}\n`);
  }
}
