import { useQuery, useQueryClient } from '@tanstack/react-query';
import { setCsrfToken } from '../api/client';
import { fetchSession, type SessionView } from './session-api';

export const SESSION_KEY = ['session'] as const;

/**
 * The signed-in person (null when nobody is), from GET /v2/session/state in the query cache. It keeps
 * the CSRF token of csrf.ts current, so writes made anywhere in the console carry it.
 */
export function useSession() {
  return useQuery(sessionQuery);
}

/** The query behind useSession, also started by the console's first script (App.tsx). */
export const sessionQuery = {
  queryKey: SESSION_KEY,
  queryFn: async () => {
    const session = await fetchSession();
    setCsrfToken(session?.csrfToken);
    return session;
  },
  retry: false,
  staleTime: 60_000,
} as const;

/** After a sign-in or an accepted link: the answer is the session; no second request needed. */
export function useSessionStarted() {
  const queryClient = useQueryClient();
  return (session: SessionView) => {
    setCsrfToken(session.csrfToken);
    queryClient.setQueryData(SESSION_KEY, session);
  };
}
