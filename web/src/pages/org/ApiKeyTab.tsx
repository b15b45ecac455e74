import { ErrorNotice } from '../../components/ErrorNotice';
import { useState } from 'react';
import { useNewApiKey } from '../../api/org';
import { CopyField } from './widgets';

/** The signed-in person's API key, for scripts: a new one replaces the old at once, shown once. */
export function ApiKeyTab({ email }: { email: string }) {
  const renew = useNewApiKey();
  const [asking, setAsking] = useState(false);
  return (
    <section className="card api-key" aria-labelledby="api-key-title">
      <h2 id="api-key-title">Your API key</h2>
      <p>
        Scripts and the <code>annotary</code> command line use an API key in the <code>apikey</code> header; it acts as{' '}
        <strong>{email}</strong>, with your roles. You have one key at a time, and Annotary keeps only a fingerprint of
        it, so it cannot show you the one you have: make a new one when you need it.
      </p>
      {!renew.data && !asking && (
        <button type="button" onClick={() => setAsking(true)}>
          Make a new API key
        </button>
      )}
      {!renew.data && asking && (
        <div className="warning-box" role="group" aria-labelledby="api-key-warning">
          <p id="api-key-warning">
            <strong>Your current key stops working at once.</strong> Every script, integration or plugin that uses it
            gets 401 until you give it the new key. Your console session is not affected.
          </p>
          <button
            type="button"
            className="danger"
            disabled={renew.isPending}
            onClick={() => renew.mutate(undefined, { onSettled: () => setAsking(false) })}
          >
            {renew.isPending ? 'Making a new key…' : 'Yes, replace my API key'}
          </button>{' '}
          <button type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNotice place="form" error={renew.error} fieldsShown />
      {renew.data && (
        <div className="one-time" role="region" aria-label="Your new API key">
          <p className="notice" role="status">
            <strong>Copy your new key now: it is shown only this once.</strong> Keep it out of code and public places;
            the old key no longer works.
          </p>
          <CopyField label="New API key" value={renew.data.apiKey} what="API key" />
          <button type="button" onClick={() => renew.reset()}>
            I have copied it: hide the key
          </button>
        </div>
      )}
    </section>
  );
}
