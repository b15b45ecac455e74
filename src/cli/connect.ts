import { setFlagsFromString } from 'node:v8';
import { Annotary } from '../client/index.js';

/** The options every API command takes (src/cli/user-commands.ts declares them). */
export interface ApiOptions {
  deployment?: string;
  url?: string;
  json?: boolean;
}

const USER_AGENT = 'annotary-cli';

/**
 * Node's fetch (undici) parses HTTP with llhttp compiled to WebAssembly on its first request. By
 * default V8 also compiles that module with its optimising tier, about 0.2 s of CPU that a
 * command making a few requests never earns back (docs/benchmarks.md, cli-start). The baseline
 * tier alone parses the same way; the flag is read when the module compiles, which is later
 * than this call, and a command process compiles no other WebAssembly.
 */
let tiered = false;
function baselineWasmOnly(): void {
  if (tiered) return;
  tiered = true;
  setFlagsFromString('--liftoff-only');
}

/** The client for a command: --url, else the deployment's address; the key from ANNOTARY_API_KEY or the profile. */
export function connect(o: ApiOptions, apiKey?: string): Annotary {
  baselineWasmOnly();
  return new Annotary({
    ...(o.deployment ? { deployment: o.deployment } : {}),
    ...(o.url ? { baseUrl: o.url } : {}),
    ...(apiKey ? { apiKey } : {}),
    userAgent: USER_AGENT,
    // A person's import or listing would rather wait out a rate-limit window than fail.
    retry: { maxAttempts: 10, maxElapsedMs: 5 * 60_000 },
  });
}
