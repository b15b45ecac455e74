/**
 * What of an unexpected error may go to a log line: its type, its code and a short message.
 * Never a stack trace, and never a database message, which can quote SQL and row values.
 */
export function describeError(err: unknown): { type: string; code?: string; message?: string } {
  if (!(err instanceof Error)) return { type: typeof err };
  const code = (err as Error & { code?: unknown }).code;
  const out: { type: string; code?: string; message?: string } = { type: err.name };
  if (typeof code === 'string' || typeof code === 'number') out.code = String(code);
  const isDatabase = err.name === 'SqliteError' || err.name === 'DatabaseError' || /^\d{5}$/.test(out.code ?? '');
  if (!isDatabase) out.message = err.message.replace(/\s+/g, ' ').slice(0, 200);
  return out;
}
