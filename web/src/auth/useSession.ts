import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { setCsrfToken } from './csrf';
import { fetchSession, type SessionView, signOut } from './session-api';

export const SESSION_KEY = ['session'] as const;

/**
 * The signed-in person (null when nobody is), from GET /v2/session in the query cache. It keeps
 * the CSRF token of csrf.ts current, so writes made anywhere in the console carry it.
 */
export function useSession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      const session = await fetchSession();
      setCsrfToken(session?.csrfToken);
      return session;
    },
    retry: false,
    staleTime: 60_000,
  });
}

/** After a sign-in or an accepted link: the answer is the session; no second request needed. */
export function useSessionStarted() {
  const queryClient = useQueryClient();
  return (session: SessionView) => {
    setCsrfToken(session.csrfToken);
    queryClient.setQueryData(SESSION_KEY, session);
  };
}

/** Signs out, forgets everything the cache held for this person, and goes to the sign-in page. */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: signOut,
    onSettled: async () => {
      setCsrfToken(undefined);
      queryClient.clear();
      queryClient.setQueryData(SESSION_KEY, null);
      await navigate('/signin', { replace: true });
    },
  });
}
