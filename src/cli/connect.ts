import { Annotary } from '../client/index.js';

/** The options every API command takes (src/cli/user-commands.ts declares them). */
export interface ApiOptions {
  deployment?: string;
  url?: string;
  json?: boolean;
}

const USER_AGENT = 'annotary-cli';

/** The client for a command: --url, else the deployment's address; the key from ANNOTARY_API_KEY or the profile. */
export function connect(o: ApiOptions, apiKey?: string): Annotary {
  return new Annotary({
    ...(o.deployment ? { deployment: o.deployment } : {}),
    ...(o.url ? { baseUrl: o.url } : {}),
    ...(apiKey ? { apiKey } : {}),
    userAgent: USER_AGENT,
    // A person's import or listing would rather wait out a rate-limit window than fail.
    retry: { maxAttempts: 10, maxElapsedMs: 5 * 60_000 },
  });
}
