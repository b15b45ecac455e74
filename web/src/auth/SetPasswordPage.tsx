import { ErrorNotice } from '../components/ErrorNotice';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { AuthCard, Field } from './AuthCard';
import {
  ApiError,
  describePasswordLink,
  type PasswordLinkView,
  type SessionView,
  submitPasswordLink,
} from './session-api';
import { useSessionStarted } from './useSession';

const MIN_LENGTH = 10;

/**
 * /password/<token> (first owner, reset) and /invite/<token> (accept an invite): the person
 * chooses a password through the one-time link and is signed in.
 */
export function SetPasswordPage() {
  const { token = '' } = useParams();
  const link = useQuery({
    queryKey: ['password-link', token],
    queryFn: () => describePasswordLink(token),
    retry: false,
    staleTime: Infinity,
  });
  if (link.isPending) {
    return (
      <AuthCard title="Set your password">
        <p role="status">Checking the link…</p>
      </AuthCard>
    );
  }
  if (link.isError) {
    const gone = link.error instanceof ApiError && link.error.status === 404;
    return (
      <AuthCard title="This link no longer works">
        <ErrorNotice
          place="form"
          error={
            gone
              ? 'It may have expired or been used already. Ask an administrator of your organization for a new one.'
              : `The server could not check the link: ${link.error.message}.`
          }
        />
        <p>
          <Link to="/signin">Go to sign-in</Link>
        </p>
      </AuthCard>
    );
  }
  return <PasswordForm token={token} link={link.data} />;
}

/** "You are invited to Street scenes as Labeler", or the organization role when no project is named. */
function invitedTo(link: PasswordLinkView): string {
  const projects = link.projects ?? [];
  if (projects.length === 0) return `You are invited as ${link.organizationRole}`;
  return `You are invited to ${projects.map((p) => `${p.name} as ${p.role}`).join(', ')}`;
}

/** Where a person lands once signed in: people who only label or review go to their work. */
function landingOf(session: SessionView): string {
  const workOnly =
    session.organizationRole === 'member' &&
    session.projectRoles.length > 0 &&
    session.projectRoles.every((r) => r.role === 'Labeler' || r.role === 'Reviewer');
  return workOnly ? '/work' : '/';
}

function PasswordForm({ token, link }: { token: string; link: PasswordLinkView }) {
  const navigate = useNavigate();
  const started = useSessionStarted();
  const invite = link.purpose === 'invite';
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (password !== repeat) {
      setError(new ApiError(400, 'the passwords differ', { repeat: 'Type the same password twice.' }));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const session = await submitPasswordLink(token, {
        password,
        ...(invite && name.trim() ? { name: name.trim() } : {}),
      });
      started(session);
      await navigate(landingOf(session), { replace: true });
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'the server could not be reached'));
    } finally {
      setBusy(false);
    }
  }

  const title = invite ? `Join ${link.organization.name}` : 'Set your password';
  return (
    <AuthCard title={title}>
      <p className="auth-intro">
        {invite
          ? `${invitedTo(link)} with ${link.email}. Choose a password to finish.`
          : `Choose a new password for ${link.email}.`}
      </p>
      <form onSubmit={(e) => void submit(e)}>
        {error && !error.fields.repeat && (
          <ErrorNotice place="form" error={error.message.charAt(0).toUpperCase() + error.message.slice(1)} />
        )}
        {invite && (
          <Field
            id="link-name"
            label="Your name"
            value={name}
            onChange={setName}
            autoComplete="name"
            required={false}
          />
        )}
        <Field
          id="link-password"
          label="New password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          hint={`At least ${MIN_LENGTH} characters.`}
          error={error?.fields.password}
        />
        <Field
          id="link-repeat"
          label="Repeat the password"
          type="password"
          value={repeat}
          onChange={setRepeat}
          autoComplete="new-password"
          error={error?.fields.repeat}
        />
        <button className="auth-primary" type="submit" disabled={busy}>
          {busy ? 'Saving…' : invite ? 'Join and sign in' : 'Set password and sign in'}
        </button>
      </form>
    </AuthCard>
  );
}
