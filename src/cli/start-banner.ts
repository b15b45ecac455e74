import type { AddressInfo } from 'node:net';
import os from 'node:os';
import type { Config } from '../config.js';

/*
 * What `annotary serve` prints when it starts. Without ANNOTARY_PUBLIC_URL every link a request
 * gets is built on the address that request came to (http/link-base.ts), so the banner offers
 * its links on each address the server is reached at, as Vite does: the first owner's password
 * link must be opened on the address the console will be used at, since the session cookie it
 * sets belongs to that address (one set on localhost is not sent to 127.0.0.1).
 */

type Interfaces = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

export interface BannerInput {
  config: Config;
  /** Where the socket listens (PORT=0 picks a free port). */
  address: AddressInfo;
  engine: string;
  /** The first owner's API key, when this start made it. */
  bootstrapKey?: string | undefined;
  /** The first owner's one-time password link, when this start made it (any base: its path counts). */
  ownerPasswordLink?: string | undefined;
  /** The machine's network interfaces (os.networkInterfaces() unless a test says). */
  interfaces?: Interfaces | undefined;
}

const isWildcard = (address: string) => address === '0.0.0.0' || address === '::';
const isLoopback = (address: string) => address === '::1' || address.startsWith('127.');
const hostOf = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * The bases people reach this server at, the one links outside a request use first: the public
 * URL when set; a wildcard listener's localhost, 127.0.0.1 and each outside IPv4 address; or the
 * one address it listens on.
 */
export function reachableBases(config: Config, address: AddressInfo, interfaces?: Interfaces): string[] {
  if (config.publicUrlConfigured) return [config.publicUrl];
  const port = address.port;
  if (!isWildcard(address.address)) return [`http://${hostOf(address.address)}:${port}`];
  const outside = Object.values(interfaces ?? os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal)
    .map((i) => `http://${i.address}:${port}`);
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`, ...new Set(outside)];
}

/** The warning for a server others reach while links made outside a request would say localhost. */
export function publicUrlWarning(config: Config, address: AddressInfo, bases: string[]): string | undefined {
  if (config.publicUrlConfigured || isLoopback(address.address)) return undefined;
  const example = bases.find((b) => !/\/\/(localhost|127\.)/.test(b)) ?? `http://<this machine>:${address.port}`;
  return (
    `  Warning: ANNOTARY_PUBLIC_URL is not set while the server listens on ${address.address}. ` +
    'Links answered to a request use the address it came to, but links made outside one ' +
    `(\`annotary users password\`) say ${config.publicUrl}. ` +
    `Set ANNOTARY_PUBLIC_URL to the address your team opens, e.g. ${example}.`
  );
}

/** The start banner, lines ending in a newline. */
export function startBanner(input: BannerInput): string {
  const { config, address } = input;
  const bases = reachableBases(config, address, input.interfaces);
  const base = bases[0] as string;
  const lines: string[] = [];
  if (input.bootstrapKey) {
    // Printed once: only its hash is stored.
    lines.push(
      '',
      '  Annotary created its first organization and owner.',
      `  API key (shown once, keep it safe): ${input.bootstrapKey}`,
      `  Try: curl -H "apikey: ${input.bootstrapKey}" ${base}/v2/listProjects`,
      '',
    );
  }
  if (input.ownerPasswordLink) {
    // One-time: only its hash is stored, and it stops working once used or after a day.
    const path = new URL(input.ownerPasswordLink).pathname;
    lines.push(
      '',
      bases.length > 1
        ? "  Set the owner's console password (one-time link, valid 24 h). Open it on the address you will " +
            'use the console at (you stay signed in there):'
        : "  Set the owner's console password (one-time link, valid 24 h):",
      ...bases.map((b) => `    ${b}${path}`),
      '',
    );
  }
  const listening = `http://${hostOf(address.address)}:${address.port}`;
  lines.push(
    `Annotary listening on ${listening} (store: ${input.engine}, deployment: ${config.deployment})`,
    `  Console: ${bases.map((b) => `${b}/`).join('  ')}`,
    `  API:  ${base}/v2`,
    `  Docs: ${base}/docs`,
  );
  const warning = publicUrlWarning(config, address, bases);
  if (warning) lines.push(warning);
  return lines.join('\n') + '\n';
}
