import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** What a page shows while its data is on the way. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** An empty list, said in words, with the next step when there is one. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
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

export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>{errorText(error)}</p>
      {error instanceof ApiError && error.status === 401 ? (
        <a href="/signin">Sign in</a>
      ) : (
        onRetry && (
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        )
      )}
    </div>
  );
}
