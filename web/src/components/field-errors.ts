import { AnnotaryError as ApiError, type FieldError } from '../../../src/client/errors';

/** The server's field errors of a failed write, or none. */
export function fieldErrorsOf(error: unknown): FieldError[] {
  return error instanceof ApiError ? error.fieldErrors : [];
}

/**
 * A lookup from a field path the form knows (`name`, `stages[2].webhook.url`) to the server's
 * message for it. A message on a parent path (`stages[2].webhook`) is shown on its fields too
 * when asked with `orParent`.
 */
export function errorLookup(errors: FieldError[], prefix = '') {
  const byField = new Map(errors.map((e) => [e.field, e.message]));
  return (field: string): string | undefined => byField.get(`${prefix}${field}`);
}

/** Errors whose field starts with the prefix, the prefix cut off (for one stage or one tool). */
export function errorsUnder(errors: FieldError[], prefix: string): FieldError[] {
  return errors
    .filter((e) => e.field === prefix || e.field.startsWith(`${prefix}.`) || e.field.startsWith(`${prefix}[`))
    .map((e) => ({ field: e.field.slice(prefix.length).replace(/^\./, ''), message: e.message }));
}
