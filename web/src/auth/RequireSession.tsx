import { ErrorNotice } from '../components/ErrorNotice';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from './useSession';

/** Draws its children for a signed-in person; anyone else goes to /signin?next=<here>. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) {
    return (
      <p className="auth-status" role="status">
        Checking your session…
      </p>
    );
  }
  if (session.isError) {
    return (
      <ErrorNotice
        place="form"
        error={`The server could not be reached: ${session.error.message}. Reload the page to try again.`}
      />
    );
  }
  if (!session.data) {
    const next = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  }
  return <>{children}</>;
}

/** Only paths of this site may follow a sign-in: `next` from the URL is never an open redirect. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}
