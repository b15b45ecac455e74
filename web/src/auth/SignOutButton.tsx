import { useSession, useSignOut } from './useSession';

/** The signed-in person's e-mail and a sign-out action, for the console's top bar. */
export function SignOutButton() {
  const session = useSession();
  const signOut = useSignOut();
  if (!session.data) return null;
  return (
    <div className="auth-account">
      <span>{session.data.user.email}</span>{' '}
      <button className="auth-signout" type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out
      </button>
    </div>
  );
}
