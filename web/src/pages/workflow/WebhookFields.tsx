import type { WebhookConfig } from '../../api/types';
import { NumberField, SelectField, TextField } from '../../components/Field';
import { namesPrivateHost } from './private-host';

type ErrorOf = (field: string) => string | undefined;

/** A Webhook stage's request: where, how, with which credentials, how long and how often. */
export function WebhookFields({
  webhook,
  onChange,
  errorOf,
}: {
  webhook: WebhookConfig;
  onChange: (webhook: WebhookConfig) => void;
  errorOf: ErrorOf;
}) {
  const set = (patch: Partial<WebhookConfig>) => onChange({ ...webhook, ...patch });
  const authType = webhook.authType ?? 'no_auth';
  return (
    <fieldset>
      <legend>Webhook request</legend>
      <TextField
        label="Webhook URL"
        type="url"
        value={webhook.url}
        onChange={(url) => set({ url })}
        error={errorOf('webhook.url') ?? errorOf('webhook')}
        hint={
          namesPrivateHost(webhook.url)
            ? 'A loopback or private address: the server refuses to deliver there unless it runs with ANNOTARY_WEBHOOK_ALLOW_PRIVATE=true.'
            : undefined
        }
      />
      <SelectField
        label="Method"
        value={webhook.method ?? 'POST'}
        options={['POST', 'PUT'] as const}
        onChange={(method) => set({ method })}
        error={errorOf('webhook.method')}
      />
      <SelectField
        label="Authentication"
        value={authType}
        options={[
          { value: 'no_auth', label: 'None' },
          { value: 'secret', label: 'HMAC signature with a secret' },
          { value: 'bearer_token', label: 'Bearer token' },
        ]}
        onChange={(a) => set({ authType: a })}
        error={errorOf('webhook.authType')}
      />
      {authType === 'secret' && (
        <TextField
          label="Signing secret"
          type="password"
          value={webhook.secret ?? ''}
          onChange={(secret) => set({ secret })}
          error={errorOf('webhook.secret')}
        />
      )}
      {authType === 'bearer_token' && (
        <TextField
          label="Bearer token"
          type="password"
          value={webhook.token ?? ''}
          onChange={(token) => set({ token })}
          error={errorOf('webhook.token')}
        />
      )}
      <NumberField
        label="Timeout (milliseconds)"
        value={webhook.timeout}
        onChange={(timeout) => set({ timeout })}
        min={1}
        error={errorOf('webhook.timeout')}
      />
      <NumberField
        label="Retries"
        value={webhook.retryCount}
        onChange={(retryCount) => set({ retryCount })}
        min={0}
        max={10}
        error={errorOf('webhook.retryCount')}
      />
    </fieldset>
  );
}
