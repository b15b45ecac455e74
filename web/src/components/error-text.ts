import { AnnotaryError as ApiError } from '../../../src/client/errors';

/**
 * The HTTP status of a failed call, from the typed client's error or the sign-in pages' own
 * (both carry `status`); 0 for anything else.
 */
export function statusOf(error: unknown): number {
  if (error instanceof Error && 'status' in error && typeof error.status === 'number') return error.status;
  return 0;
}

/** The server's lower-case message as a sentence. */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Words for an error a person can act on; never a stack trace. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return 'Your session has ended. Sign in again to continue.';
    // The server says why (a role, an assignment, a storage refusing its credentials): say it.
    if (error.status === 403)
      return error.message ? `Not allowed: ${sentence(error.message)}` : 'Your role does not allow this.';
    if (error.status === 404) return 'This was not found. It may have been deleted, or you have no access to it.';
    if (error.status >= 500) return 'The server had a problem. Try again in a moment.';
    return error.message;
  }
  return 'Something went wrong. Try again.';
}
