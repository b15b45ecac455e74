import { readProfile, type Env, type Profile } from './profile.js';

/** The four deployments the contract knows; each has its own base address ending in `/v2`. */
export const DEPLOYMENTS = ['eu', 'us', 'india', 'test'] as const;
export type Deployment = (typeof DEPLOYMENTS)[number];

/** Where `eu`, the default, points when nothing else names its address. */
export const DEFAULT_EU_URL = 'http://localhost:8080/v2';

export function isDeployment(name: string): name is Deployment {
  return (DEPLOYMENTS as readonly string[]).includes(name);
}

/** An unknown deployment name, or a deployment with no address or key: a mistake of the caller. */
export class AnnotaryConfigError extends Error {
  override readonly name = 'AnnotaryConfigError';
}

export function checkDeployment(name: string | undefined): Deployment {
  const value = (name ?? 'eu').trim().toLowerCase();
  if (!isDeployment(value)) {
    throw new AnnotaryConfigError(`unknown deployment "${name}": use one of ${DEPLOYMENTS.join(', ')}`);
  }
  return value;
}

export interface ConnectionSettings {
  deployment: Deployment;
  baseUrl: string;
  apiKey: string | undefined;
}

/**
 * Address: `baseUrl`, else `ANNOTARY_URL_<DEPLOYMENT>`, else the profile file, else (eu only)
 * http://localhost:8080/v2. Key: `apiKey`, else `ANNOTARY_API_KEY`, else the profile file.
 */
export function resolveConnection(
  options: { deployment?: string | undefined; baseUrl?: string | undefined; apiKey?: string | undefined },
  env: Env = process.env,
  profile: () => Profile = () => readProfile(env),
): ConnectionSettings {
  const deployment = checkDeployment(options.deployment);
  const envUrl = env[`ANNOTARY_URL_${deployment.toUpperCase()}`]?.trim() || undefined;
  const envKey = env.ANNOTARY_API_KEY?.trim() || undefined;
  // The file is read only when something is still missing (scripts and CI need none).
  const needFile = !(options.baseUrl ?? envUrl) || !(options.apiKey ?? envKey);
  const saved = needFile ? profile().deployments[deployment] : undefined;
  const baseUrl = options.baseUrl ?? envUrl ?? saved?.url ?? (deployment === 'eu' ? DEFAULT_EU_URL : undefined);
  if (!baseUrl) {
    throw new AnnotaryConfigError(
      `no address for deployment "${deployment}": set ANNOTARY_URL_${deployment.toUpperCase()}, ` +
        `run \`annotary login --deployment ${deployment} --url URL\`, or pass baseUrl`,
    );
  }
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new AnnotaryConfigError(`the address of deployment "${deployment}" is not an http(s) URL: ${baseUrl}`);
  }
  return { deployment, baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: options.apiKey ?? envKey ?? saved?.apiKey };
}
