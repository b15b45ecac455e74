import { isIP } from 'node:net';
import path from 'node:path';
import { loadOidcProviders, OidcConfigError, type OidcProviderConfig } from './oidc-config.js';

/** Rate-limit plans an organization can be on (DECISIONS section 2). */
export const PLANS = ['standard', 'professional', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The contract's four deployments; a server says which one it is (/healthz, the document's servers). */
export const DEPLOYMENTS = ['eu', 'us', 'india', 'test'] as const;
export type Deployment = (typeof DEPLOYMENTS)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgres:// URL switches the store to PostgreSQL; unset means SQLite in dataDir. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /**
   * Base of the URLs the server hands out, without a trailing slash: ANNOTARY_PUBLIC_URL, else
   * `http://localhost:$PORT`, which only links made outside a request use (see http/link-base.ts).
   */
  publicUrl: string;
  /** ANNOTARY_PUBLIC_URL was set: every link uses it, whatever address a request came to. */
  publicUrlConfigured: boolean;
  /** Which of the contract's deployments this server is. */
  deployment: Deployment;
  /** 32-byte key for secrets at rest; undefined means "use the key file in dataDir". */
  secretKey: Buffer | undefined;
  bootstrapApiKey: string | undefined;
  bootstrapEmail: string | undefined;
  /** The first owner's password; unset means the first start prints a link to set it. */
  bootstrapPassword: string | undefined;
  /** Hours a console session lives without being used (sliding). */
  sessionHours: number;
  /** Hours an invite's accept link stays good. */
  inviteHours: number;
  defaultPlan: Plan;
  webhookAllowPrivate: boolean;
  /** Storage hosts on loopback and private addresses are allowed (link-local never is). */
  storageAllowPrivate: boolean;
  /** Imported assets without a size get it from their file's header, read in the background. */
  readAssetHeaders: boolean;
  /** Deadline of one asset header read (connection, answer and bytes), in ms. */
  mediaReadTimeoutMs: number;
  /** Deadline of one Assist request to a plugin (connection, answer and bytes), in ms. */
  assistTimeoutMs: number;
  /** Deadline of one call to a pct project's external validator, in ms. */
  pctValidationTimeoutMs: number;
  logLevel: LogLevel;
  bodyLimit: number;
  uploadLimit: number;
  /** Base delay of job retries, in ms. */
  jobRetryBaseMs: number;
  /** Hours a done job is kept before the worker deletes it; 0 keeps them forever. */
  doneJobRetentionHours: number;
  /** Days an audit record is kept before the worker deletes it; 0 keeps them forever. */
  auditRetentionDays: number;
  randomSeed: string | undefined;
  /** Start the job worker loop inside the API process. */
  runWorker: boolean;
  /**
   * Which proxies may set X-Forwarded-For (Fastify's trustProxy): false (default, the socket's
   * address is the client), true (any), a hop count, or a list of addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  /** OpenID Connect providers people may sign in with (src/oidc-config.ts). */
  oidcProviders: OidcProviderConfig[];
  /** E-mail and password sign-in to the console; false leaves single sign-on and API keys. */
  passwordSignIn: boolean;
}

/** Thrown when an environment variable holds a value we cannot use; names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function enumVar<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  const hit = allowed.find((a) => a === v);
  if (!hit) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return hit;
}

function urlVar(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function secretKeyVar(env: Env): Buffer | undefined {
  const raw = env.ANNOTARY_SECRET_KEY;
  if (raw === undefined || raw === '') return undefined;
  const trimmed = raw.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  if (!key || key.length !== 32) {
    throw new ConfigError('ANNOTARY_SECRET_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

function apiKeyVar(env: Env): string | undefined {
  const raw = env.ANNOTARY_BOOTSTRAP_API_KEY;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 16 || raw.length > 256 || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError('ANNOTARY_BOOTSTRAP_API_KEY', 'must be 16 to 256 printable characters without spaces');
  }
  return raw;
}

function emailVar(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[^\s@]+@[^\s@]+$/.test(raw.trim())) throw new ConfigError(name, 'is not an e-mail address');
  return raw.trim().toLowerCase();
}

/** ANNOTARY_TRUST_PROXY: unset/false, true, a hop count, or a comma list of addresses/CIDRs. */
function trustProxyVar(env: Env): boolean | number | string[] {
  const name = 'ANNOTARY_TRUST_PROXY';
  const raw = env[name]?.trim() ?? '';
  if (raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 32) throw new ConfigError(name, 'a hop count must be between 1 and 32');
    return hops;
  }
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(name, `"${entry}" is not an IP address or CIDR range (or use true, false, a hop count)`);
    }
  }
  return entries;
}

function oidcVar(env: Env): OidcProviderConfig[] {
  try {
    return loadOidcProviders(env);
  } catch (err) {
    if (err instanceof OidcConfigError) throw new ConfigError(err.variable, err.message.slice(err.variable.length + 2));
    throw err;
  }
}

/** Passwords people set: long enough to resist guessing, short enough to hash cheaply. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

function passwordVar(env: Env): string | undefined {
  const raw = env.ANNOTARY_BOOTSTRAP_PASSWORD;
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < PASSWORD_MIN || raw.length > PASSWORD_MAX) {
    throw new ConfigError('ANNOTARY_BOOTSTRAP_PASSWORD', `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  return raw;
}

/** Reads the configuration from the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = intVar(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST?.trim() || '0.0.0.0';
  const dataDir = path.resolve(env.ANNOTARY_DATA_DIR?.trim() || './data');
  const databaseUrl = urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = urlVar(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const publicUrlRaw = urlVar(env, 'ANNOTARY_PUBLIC_URL', ['http:', 'https:']);
  const publicUrl = (publicUrlRaw ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const oidcProviders = oidcVar(env);
  const passwordSignIn = boolVar(env, 'ANNOTARY_PASSWORD_SIGNIN', true);
  if (!passwordSignIn && oidcProviders.length === 0) {
    throw new ConfigError('ANNOTARY_PASSWORD_SIGNIN', 'false needs an OpenID Connect provider (ANNOTARY_OIDC_ISSUER)');
  }
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl,
    publicUrl,
    publicUrlConfigured: publicUrlRaw !== undefined,
    deployment: enumVar(env, 'ANNOTARY_DEPLOYMENT', DEPLOYMENTS, 'eu'),
    secretKey: secretKeyVar(env),
    bootstrapApiKey: apiKeyVar(env),
    bootstrapEmail: emailVar(env, 'ANNOTARY_BOOTSTRAP_EMAIL'),
    bootstrapPassword: passwordVar(env),
    sessionHours: intVar(env, 'ANNOTARY_SESSION_HOURS', 12, 1, 24 * 365),
    inviteHours: intVar(env, 'ANNOTARY_INVITE_HOURS', 168, 1, 24 * 365),
    defaultPlan: enumVar(env, 'ANNOTARY_DEFAULT_PLAN', PLANS, 'standard'),
    webhookAllowPrivate: boolVar(env, 'ANNOTARY_WEBHOOK_ALLOW_PRIVATE', false),
    storageAllowPrivate: boolVar(env, 'ANNOTARY_STORAGE_ALLOW_PRIVATE', false),
    readAssetHeaders: boolVar(env, 'ANNOTARY_READ_ASSET_HEADERS', true),
    mediaReadTimeoutMs: intVar(env, 'ANNOTARY_MEDIA_READ_TIMEOUT_MS', 15_000, 100, 600_000),
    assistTimeoutMs: intVar(env, 'ANNOTARY_ASSIST_TIMEOUT_MS', 20_000, 100, 600_000),
    pctValidationTimeoutMs: intVar(env, 'ANNOTARY_PCT_VALIDATION_TIMEOUT_MS', 20_000, 100, 600_000),
    logLevel: enumVar(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    bodyLimit: intVar(env, 'ANNOTARY_BODY_LIMIT', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    uploadLimit: intVar(env, 'ANNOTARY_UPLOAD_LIMIT', 100 * 1024 * 1024, 1024, 10 * 1024 ** 3),
    jobRetryBaseMs: intVar(env, 'ANNOTARY_JOB_RETRY_BASE_MS', 1000, 1, 3_600_000),
    doneJobRetentionHours: intVar(env, 'ANNOTARY_DONE_JOB_RETENTION_HOURS', 168, 0, 100_000),
    auditRetentionDays: intVar(env, 'ANNOTARY_AUDIT_RETENTION_DAYS', 365, 0, 100_000),
    randomSeed: env.ANNOTARY_RANDOM_SEED?.trim() || undefined,
    runWorker: boolVar(env, 'ANNOTARY_RUN_WORKER', true),
    trustProxy: trustProxyVar(env),
    oidcProviders,
    passwordSignIn,
  };
}
