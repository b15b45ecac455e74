import { invalidField } from '../errors.js';

/**
 * A query-string value that names one id or a JSON list of them (`?batches=<id>` or
 * `?batches=["<id>","<id>"]`), as the ids it names; a malformed list is a 400 naming `field`.
 */
export function idsFromQuery(raw: string, field: string): string[] {
  const text = raw.trim();
  if (!text.startsWith('[')) return [text];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidField(field, 'must be an id or a JSON array of ids');
  }
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string')) {
    throw invalidField(field, 'must be an id or a JSON array of ids');
  }
  return parsed as string[];
}
