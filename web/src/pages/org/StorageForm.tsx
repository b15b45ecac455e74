import { ErrorNotice } from '../../components/ErrorNotice';
import { type FormEvent, useState } from 'react';
import { type StorageBody, useCreateStorage } from '../../api/org';
import { CheckboxField, SelectField, TextField } from '../../components/Field';
import { fieldErrorsOf } from '../../components/field-errors';

type Provider = StorageBody['provider'];
const PROVIDERS: readonly { value: Provider; label: string }[] = [
  { value: 'AWS', label: 'Amazon S3 (AWS)' },
  { value: 'CUSTOM_S3', label: 'S3-compatible (MinIO, Ceph, …)' },
  { value: 'GCP', label: 'Google Cloud Storage (GCP)' },
  { value: 'AZURE', label: 'Azure Blob Storage' },
];
type S3Access = 'IAM_USER' | 'IAM_DELEGATED';
type AzureAuth = 'ACCOUNT_KEY' | 'SERVICE_PRINCIPAL' | 'MULTI_TENANT';

const EMPTY = {
  name: '',
  region: '',
  publicKey: '',
  privateKey: '',
  s3RoleArn: '',
  s3ExternalId: '',
  host: '',
  credentials: '',
  azureTenantId: '',
  azureClientId: '',
  azureClientSecret: '',
};
type Text = typeof EMPTY;

/** The body of one provider: only the fields it uses, blanks left out (the server's defaults apply). */
export function storageBody(
  provider: Provider,
  s3Access: S3Access,
  azureAuth: AzureAuth,
  accelerate: boolean,
  t: Text,
) {
  const pick = (...keys: (keyof Text)[]) =>
    Object.fromEntries(
      keys.filter((k) => t[k].trim() !== '').map((k) => [k, k === 'credentials' ? t[k] : t[k].trim()]),
    );
  const body: StorageBody = { name: t.name.trim(), provider };
  switch (provider) {
    case 'AWS':
      return {
        ...body,
        s3AccessType: s3Access,
        useAccelerateEndpoint: accelerate,
        ...pick(
          'region',
          ...(s3Access === 'IAM_USER'
            ? (['publicKey', 'privateKey'] as const)
            : (['s3RoleArn', 's3ExternalId'] as const)),
        ),
      };
    case 'CUSTOM_S3':
      return { ...body, ...pick('host', 'publicKey', 'privateKey') };
    case 'GCP':
      return { ...body, ...pick('credentials', 'host') };
    case 'AZURE': {
      const auth =
        azureAuth === 'ACCOUNT_KEY'
          ? (['privateKey'] as const)
          : azureAuth === 'SERVICE_PRINCIPAL'
            ? (['azureTenantId', 'azureClientId', 'azureClientSecret'] as const)
            : (['azureTenantId'] as const);
      return { ...body, azureAuthType: azureAuth, ...pick('publicKey', 'host', ...auth) };
    }
  }
}

/** Connect a storage: each provider with its own fields; the secrets are sent, never shown again. */
export function StorageForm({ onCreated }: { onCreated: (storage: { _id: string; name: string }) => void }) {
  const [provider, setProvider] = useState<Provider>('CUSTOM_S3');
  const [s3Access, setS3Access] = useState<S3Access>('IAM_USER');
  const [azureAuth, setAzureAuth] = useState<AzureAuth>('ACCOUNT_KEY');
  const [accelerate, setAccelerate] = useState(false);
  const [text, setText] = useState(EMPTY);
  const create = useCreateStorage();
  const errors = fieldErrorsOf(create.error);
  // `credentials.private_key` and friends are shown on the credentials box.
  const errorOf = (field: string) =>
    errors
      .filter((e) => e.field === field || e.field.startsWith(`${field}.`))
      .map((e) => (e.field === field ? e.message : `${e.field.slice(field.length + 1)}: ${e.message}`))
      .join('; ') || undefined;
  const field = (
    key: keyof Text,
    label: string,
    opts: { hint?: string; secret?: boolean; multiline?: boolean } = {},
  ) => (
    <TextField
      label={label}
      value={text[key]}
      onChange={(v) => setText({ ...text, [key]: v })}
      error={errorOf(key)}
      hint={opts.hint ?? (opts.secret ? 'Write-only: stored encrypted, never shown again.' : undefined)}
      type={opts.secret ? 'password' : 'text'}
      multiline={opts.multiline}
    />
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(storageBody(provider, s3Access, azureAuth, accelerate, text), {
      onSuccess: (data) => {
        setText(EMPTY);
        onCreated(data.storage);
      },
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="storage-form-title" autoComplete="off">
      <h3 id="storage-form-title">Connect a storage</h3>
      {field('name', 'Storage name')}
      <SelectField
        label="Provider"
        value={provider}
        options={PROVIDERS}
        onChange={setProvider}
        error={errorOf('provider')}
      />
      {provider === 'AWS' && (
        <>
          <SelectField
            label="Access"
            value={s3Access}
            options={[
              { value: 'IAM_USER', label: 'Access keys of an IAM user' },
              { value: 'IAM_DELEGATED', label: 'A role Annotary assumes (delegated)' },
            ]}
            onChange={setS3Access}
            error={errorOf('s3AccessType')}
          />
          {field('region', 'Region', { hint: 'Default eu-central-1.' })}
          {s3Access === 'IAM_USER' ? (
            <>
              {field('publicKey', 'Access key id')}
              {field('privateKey', 'Secret access key', { secret: true })}
            </>
          ) : (
            <>
              {field('s3RoleArn', 'Role ARN')}
              {field('s3ExternalId', 'External id', { hint: 'Of the role’s trust policy; made for you when blank.' })}
            </>
          )}
          <CheckboxField label="Use the S3 accelerate endpoint" checked={accelerate} onChange={setAccelerate} />
        </>
      )}
      {provider === 'CUSTOM_S3' && (
        <>
          {field('host', 'Endpoint URL', { hint: 'Such as https://s3.example.com (path-style requests).' })}
          {field('publicKey', 'Access key id')}
          {field('privateKey', 'Secret access key', { secret: true })}
        </>
      )}
      {provider === 'GCP' && (
        <>
          {field('credentials', 'Service-account key (JSON)', {
            multiline: true,
            hint: 'Paste the key file. Write-only: stored encrypted, never shown again.',
          })}
          {field('host', 'Endpoint URL (optional)', { hint: 'Only for an emulator or a sovereign cloud.' })}
        </>
      )}
      {provider === 'AZURE' && (
        <>
          <SelectField
            label="Authentication"
            value={azureAuth}
            options={[
              { value: 'ACCOUNT_KEY', label: 'Account key' },
              { value: 'SERVICE_PRINCIPAL', label: 'Service principal' },
              { value: 'MULTI_TENANT', label: 'Multi-tenant app' },
            ]}
            onChange={setAzureAuth}
            error={errorOf('azureAuthType')}
          />
          {field('publicKey', 'Storage account name')}
          {azureAuth === 'ACCOUNT_KEY' && field('privateKey', 'Account key', { secret: true })}
          {azureAuth !== 'ACCOUNT_KEY' && field('azureTenantId', 'Tenant id')}
          {azureAuth === 'SERVICE_PRINCIPAL' && (
            <>
              {field('azureClientId', 'Client id')}
              {field('azureClientSecret', 'Client secret', { secret: true })}
            </>
          )}
          {field('host', 'Endpoint URL (optional)', { hint: 'Only for an emulator or a sovereign cloud.' })}
        </>
      )}
      <button type="submit" disabled={create.isPending || !text.name.trim()}>
        {create.isPending ? 'Connecting…' : 'Connect storage'}
      </button>
      <ErrorNotice place="form" error={create.error} fieldsShown />
      <p className="muted">Annotary does not contact the provider now: problems show when you browse the files.</p>
    </form>
  );
}
