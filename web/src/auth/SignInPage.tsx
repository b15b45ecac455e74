import { useQuery } from '@tanstack/react-query';
import { ErrorNotice } from '../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { AuthCard, Field } from './AuthCard';
import { safeNext } from './RequireSession';
import { ApiError, fetchSignInOptions, providerSignInHref, signIn, type SignInBody } from './session-api';
import { useSession, useSessionStarted } from './useSession';

/**
 * /signin: a button per single sign-on provider, e-mail and password (unless turned off), or an
 * API key pasted once; errors stay on the form. A provider's refusal comes back as ?error=.
 */
export function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const session = useSession();
  const started = useSessionStarted();
  const options = useQuery({ queryKey: ['sign-in-options'], queryFn: fetchSignInOptions, staleTime: 60_000 });
  const providers = options.data?.providers ?? [];
  const passwordOff = options.data?.passwordSignIn === false;
  const refused = params.get('error');
  const [withKey, setWithKey] = useState(false);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);

  if (session.data) return <Navigate to={next} replace />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    const body: SignInBody = withKey || passwordOff ? { apiKey: apiKey.trim() } : { email, password };
    try {
      started(await signIn(body));
      await navigate(next, { replace: true });
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'the server could not be reached'));
      setPassword('');
    } finally {
      setBusy(false);
    }
  }

  const keyOnly = withKey || passwordOff;
  return (
    <AuthCard title="Sign in">
      {refused && !error && (
        <div className="auth-refusal">
          <ErrorNotice place="form" error={capitalise(refused.slice(0, 300))} />
        </div>
      )}
      {providers.length > 0 && (
        <div className="auth-providers">
          {providers.map((p) => (
            <a key={p.id} className="auth-primary auth-provider" href={providerSignInHref(p.id, next)}>
              Sign in with {p.name}
            </a>
          ))}
          {!passwordOff && <p className="auth-or">or</p>}
        </div>
      )}
      {passwordOff && (
        <p className="auth-hint">Password sign-in is turned off here. An API key can still start a session:</p>
      )}
      <form onSubmit={(e) => void submit(e)} noValidate={false}>
        {error && <ErrorNotice place="form" error={capitalise(error.message)} />}
        {keyOnly ? (
          <Field
            id="signin-apikey"
            label="API key"
            type="password"
            value={apiKey}
            onChange={setApiKey}
            autoComplete="off"
            hint="Pasted once: the browser keeps a session, not the key."
            error={error?.fields.apiKey}
          />
        ) : (
          <>
            <Field
              id="signin-email"
              label="E-mail"
              type="email"
              value={email}
              onChange={setEmail}
              autoComplete="username"
              error={error?.fields.email}
            />
            <Field
              id="signin-password"
              label="Password"
              type="password"
              value={password}
              onChange={setPassword}
              autoComplete="current-password"
              error={error?.fields.password}
            />
          </>
        )}
        <button className="auth-primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {!passwordOff && (
          <button
            className="auth-link-button"
            type="button"
            onClick={() => {
              setWithKey(!withKey);
              setError(undefined);
            }}
          >
            {withKey ? 'Use e-mail and password instead' : 'Use an API key instead'}
          </button>
        )}
      </form>
    </AuthCard>
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
