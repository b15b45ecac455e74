import { Link, useLocation } from 'react-router';
import { ApiError } from './session-api';

/**
 * An API error said politely, in place of what could not be shown: 403 names the role limit,
 * 401 offers to sign in again. For the console's pages as much as for these.
 */
export function ApiErrorNotice({ error, what }: { error: unknown; what: string }) {
  const location = useLocation();
  const status = error instanceof ApiError ? error.status : 0;
  const detail = error instanceof Error ? error.message : String(error);
  if (status === 403) {
    return (
      <p className="notice" role="note">
        Your role does not allow you to see {what} ({detail}). An owner or admin of your organization can change that.
      </p>
    );
  }
  if (status === 401) {
    const next = encodeURIComponent(`${location.pathname}${location.search}`);
    return (
      <p className="notice" role="alert">
        Your session has ended. <Link to={`/signin?next=${next}`}>Sign in again</Link> to see {what}.
      </p>
    );
  }
  return (
    <p className="notice notice-error" role="alert">
      {what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded: {detail}.
    </p>
  );
}
