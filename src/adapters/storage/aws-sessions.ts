import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { type RetryPolicy, StorageFailure, networkCode, safeCode } from './storage-adapter.js';
import { withRetry } from './retry.js';

/*
 * IAM_DELEGATED storages: the server assumes the customer's role with its OWN AWS credentials
 * (the SDK's default chain: environment, shared config, instance or task role) and the
 * customer's external id. Sessions are cached per role until shortly before they expire, so a
 * listing of 100,000 objects or many listings in a row make one AssumeRole call.
 */

/** Requested session length; a role's MaxSessionDuration is at least one hour. */
export const SESSION_SECONDS = 3600;
/** A session is renewed once less than this is left, so signed URLs stay valid at least this long. */
export const RENEW_BEFORE_MS = 30 * 60_000;

/** The shape the AWS SDK takes as `credentials`. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

interface Session {
  credentials: AwsCredentials;
  expiresAt: number;
}

const sessions = new Map<string, Promise<Session>>();

export interface AssumeRoleInput {
  roleArn: string;
  externalId: string;
  region: string;
  /** Test-only STS endpoint (see index.ts). */
  stsEndpoint?: string | undefined;
  retry: RetryPolicy;
  now?: () => number;
}

function classifySts(err: unknown): StorageFailure {
  const net = networkCode(err);
  if (net) return new StorageFailure('unreachable', `AWS STS: ${net}`);
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (e.name === 'CredentialsProviderError') {
    return new StorageFailure('misconfigured', 'the server has no AWS credentials of its own to assume roles with');
  }
  if (e.name === 'Throttling' || e.name === 'ThrottlingException' || status === 429) {
    return new StorageFailure('rate_limited', 'AWS STS Throttling');
  }
  if (e.name === 'AccessDenied' || e.name === 'AccessDeniedException' || status === 403 || status === 401) {
    return new StorageFailure('denied', `AWS STS refused to assume the role (${safeCode(e.name)})`);
  }
  if (e.name === 'ValidationError' || e.name === 'MalformedPolicyDocument') {
    return new StorageFailure('misconfigured', `AWS STS rejected the role request (${safeCode(e.name)})`);
  }
  return new StorageFailure('provider_error', `AWS STS ${safeCode(e.name)}${status ? ` (HTTP ${status})` : ''}`);
}

async function assume(input: AssumeRoleInput): Promise<Session> {
  const sts = new STSClient({
    region: input.region,
    maxAttempts: 1,
    ...(input.stsEndpoint ? { endpoint: input.stsEndpoint } : {}),
  });
  try {
    const out = await withRetry(
      () =>
        sts.send(
          new AssumeRoleCommand({
            RoleArn: input.roleArn,
            ExternalId: input.externalId,
            RoleSessionName: 'annotary',
            DurationSeconds: SESSION_SECONDS,
          }),
        ),
      classifySts,
      input.retry,
    );
    const c = out.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey)
      throw new StorageFailure('provider_error', 'AWS STS returned no credentials');
    const expiresAt = c.Expiration ? c.Expiration.getTime() : (input.now ?? Date.now)() + SESSION_SECONDS * 1000;
    return {
      credentials: {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
        expiration: new Date(expiresAt),
      },
      expiresAt,
    };
  } finally {
    sts.destroy();
  }
}

/** Credentials of the assumed role: the cached session while it has time left, else a new one. */
export async function assumedRoleCredentials(input: AssumeRoleInput): Promise<Session> {
  const now = (input.now ?? Date.now)();
  const key = [input.stsEndpoint ?? '', input.region, input.roleArn, input.externalId].join('\n');
  const cached = sessions.get(key);
  if (cached) {
    const session = await cached.catch(() => undefined);
    if (session && session.expiresAt - now > RENEW_BEFORE_MS) return session;
    if (sessions.get(key) === cached) sessions.delete(key);
  }
  // Concurrent callers share one AssumeRole call; a failed call is not cached.
  let pending = sessions.get(key);
  if (!pending) {
    pending = assume(input);
    sessions.set(key, pending);
    pending.catch(() => {
      if (sessions.get(key) === pending) sessions.delete(key);
    });
  }
  return pending;
}

/** Forgets every cached session (tests). */
export function clearAwsSessions(): void {
  sessions.clear();
}
