import { useQuery } from '@tanstack/react-query';
import { api, setCsrfToken, unwrap } from './client';

export interface SessionInfo {
  user: { _id: string; email: string; name: string };
  organization: { _id: string; name: string; plan: string };
  organizationRole: 'owner' | 'admin' | 'member';
  projectRoles: { projectId: string; role: string }[];
  via: 'session' | 'apikey';
  csrfToken?: string;
  expiresAt?: string;
}

export const sessionKey = ['session'] as const;

/** Who is signed in (GET /v2/session); keeps the CSRF token the client sends on writes. */
export function useSessionInfo() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async () => {
      const session = await unwrap<SessionInfo>('GET', '/v2/session', api.GET('/v2/session'));
      setCsrfToken(session.csrfToken);
      return session;
    },
    staleTime: 60_000,
  });
}

export async function signOut(): Promise<void> {
  await unwrap('DELETE', '/v2/session', api.DELETE('/v2/session')).catch(() => undefined);
  setCsrfToken(undefined);
}
