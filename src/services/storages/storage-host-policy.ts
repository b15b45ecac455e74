import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ipLiteral, isPublicAddress } from '../../adapters/webhook/address-policy.js';
import { invalidField } from '../../errors.js';

/*
 * Where a storage's `host` (CUSTOM_S3, GCP and Azure endpoints) may point. The server signs and
 * sends requests there with the storage's credentials and answers what comes back, so a host is
 * a way to make the server call addresses of its own network:
 * - link-local addresses (169.254.0.0/16 with the cloud metadata service, fe80::/10) never;
 * - loopback and private addresses only when the operator allows it
 *   (ANNOTARY_STORAGE_ALLOW_PRIVATE=true: MinIO on the private network, emulators in tests).
 * IP literals are judged when the storage is created; names when the storage is used, by the
 * addresses they resolve to.
 */

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6'); // NAT64 form of 169.254.0.0/16
LINK_LOCAL.addSubnet('2002:a9fe::', 32, 'ipv6'); // 6to4 form

export type HostVerdict = { ok: true } | { ok: false; reason: string };

/** The verdict on one IP address for a storage host. */
export function judgeStorageAddress(address: string, allowPrivate: boolean): HostVerdict {
  const family = isIP(address);
  if (family === 0) return { ok: false, reason: `${address} is not an IP address` };
  if (LINK_LOCAL.check(address, family === 4 ? 'ipv4' : 'ipv6')) {
    return { ok: false, reason: `${address} is a link-local address (cloud metadata): never allowed` };
  }
  if (allowPrivate || isPublicAddress(address)) return { ok: true };
  return {
    ok: false,
    reason: `${address} is not a public address (an operator may allow private storage hosts with ANNOTARY_STORAGE_ALLOW_PRIVATE=true)`,
  };
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `https://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** At creation: an IP-literal host that may not be used is a 400 on `host`. */
export function assertStorageHostLiteral(host: string | null, allowPrivate: boolean): void {
  const name = host === null ? undefined : hostnameOf(host);
  const literal = name === undefined ? undefined : ipLiteral(name);
  if (literal === undefined) return;
  const verdict = judgeStorageAddress(literal, allowPrivate);
  if (!verdict.ok) throw invalidField('host', `refused: ${verdict.reason}`);
}

/** Before use: every address the host's name resolves to must be allowed (400 on `host`). */
export async function assertStorageHostReachable(host: string, allowPrivate: boolean): Promise<void> {
  const name = hostnameOf(host);
  if (name === undefined) throw invalidField('host', 'is not a valid endpoint');
  const literal = ipLiteral(name);
  let addresses: string[];
  if (literal !== undefined) addresses = [literal];
  else {
    try {
      addresses = (await lookup(name, { all: true })).map((a) => a.address);
    } catch {
      // Unresolvable: the provider call fails on its own and says the host cannot be reached.
      return;
    }
  }
  for (const address of addresses) {
    const verdict = judgeStorageAddress(address, allowPrivate);
    if (!verdict.ok) {
      throw invalidField('host', `refused: ${literal === undefined ? `${name} resolves to ` : ''}${verdict.reason}`);
    }
  }
}
