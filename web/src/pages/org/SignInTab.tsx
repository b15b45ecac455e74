import { type FormEvent, useState } from 'react';
import { type OrgSettings, useOrgSettings, useUpdateOrgSettings } from '../../api/org';
import { CheckboxField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/States';

function SignInForm({ orgId, settings }: { orgId: string; settings: OrgSettings }) {
  const update = useUpdateOrgSettings(orgId);
  const [passwords, setPasswords] = useState(settings.passwordSignIn);
  const fieldError = errorLookup(fieldErrorsOf(update.error));
  const changed = passwords !== settings.passwordSignIn;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ passwordSignIn: passwords });
  };
  if (!settings.serverPasswordSignIn) {
    return (
      <p>
        <strong>Password sign-in is off for the whole server</strong> (<code>ANNOTARY_PASSWORD_SIGNIN=false</code>):
        everyone signs in through single sign-on or uses an API key. Only the server&apos;s operator can change that.
      </p>
    );
  }
  return (
    <form onSubmit={submit} aria-labelledby="sign-in-title">
      <CheckboxField
        label="Members may sign in with e-mail and password"
        checked={passwords}
        onChange={setPasswords}
        error={fieldError('passwordSignIn')}
      />
      <p className="muted">
        {passwords
          ? 'Members choose their password through an invite or reset link, and sign in with it or through single sign-on.'
          : 'Members sign in through single sign-on only: a password, a reset link and an invite link are refused, with words pointing to single sign-on. Invited people join by signing in through single sign-on with the invited address. API keys keep working.'}
      </p>
      <button type="submit" disabled={!changed || update.isPending}>
        {update.isPending ? 'Saving…' : 'Save sign-in settings'}
      </button>
      {update.isSuccess && !changed && (
        <p role="status">
          Saved: password sign-in is {update.data.settings.passwordSignIn ? 'on' : 'off'} for this organization.
        </p>
      )}
      <ErrorNotice place="form" error={update.error} fieldsShown />
    </form>
  );
}

/** How the organization's members sign in: single sign-on providers, and whether passwords are allowed. */
export function SignInTab({ orgId }: { orgId: string }) {
  const settings = useOrgSettings(orgId);
  return (
    <section className="card" aria-labelledby="sign-in-title">
      <h2 id="sign-in-title">Sign-in</h2>
      {settings.isPending && <Loading what="the sign-in settings" />}
      {settings.isError && <ErrorNotice error={settings.error} onRetry={() => void settings.refetch()} />}
      {settings.data && (
        <>
          <p>
            {settings.data.settings.singleSignOn.length > 0
              ? `Single sign-on: ${settings.data.settings.singleSignOn.join(', ')}.`
              : 'No single sign-on provider signs people in to this organization: password sign-in cannot be turned off until one is set up (docs/operations.md).'}
          </p>
          <SignInForm orgId={orgId} settings={settings.data.settings} />
        </>
      )}
    </section>
  );
}
