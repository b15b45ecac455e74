import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook must not reach unless private destinations are allowed: a workflow
 * editor could otherwise make the server call its own admin ports, the cloud metadata service
 * (169.254.169.254) or machines of the internal network (SSRF).
 */
const NOT_PUBLIC = new BlockList();
const IPV4_NOT_PUBLIC = [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking networks
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const;
for (const [net, prefix] of IPV4_NOT_PUBLIC) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
  // The same IPv4 networks written as IPv6: a NAT64 gateway (64:ff9b::/96, RFC 6052) or a 6to4
  // relay (2002::/16, RFC 3056) would carry the request to the IPv4 address inside.
  const [hi, lo] = hextets(net);
  NOT_PUBLIC.addSubnet(`64:ff9b::${hi}:${lo}`, 96 + prefix, 'ipv6');
  NOT_PUBLIC.addSubnet(`2002:${hi}:${lo}::`, 16 + prefix, 'ipv6');
  NOT_PUBLIC.addSubnet(`::${hi}:${lo}`, 96 + prefix, 'ipv6'); // IPv4-compatible (deprecated)
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['2001::', 32], // Teredo: tunnels to an IPv4 address we cannot judge
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some networks)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** `10.1.2.3` -> ['a01', '203']: an IPv4 address as the two hextets of its IPv6 forms. */
function hextets(ipv4: string): [string, string] {
  const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

/**
 * True for an address a webhook may reach by default. IPv4-mapped IPv6 is judged as IPv4, and so
 * are the NAT64, 6to4 and IPv4-compatible forms.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as an IP literal (IPv6 without brackets), or undefined for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

/** Raised when a destination resolves to an address that is not public. */
export class PrivateDestinationError extends Error {
  readonly code = 'ERR_WEBHOOK_PRIVATE_DESTINATION';
  constructor(host: string, address: string) {
    super(
      host === address
        ? `refused: ${address} is not a public address`
        : `refused: ${host} resolves to ${address}, not a public address`,
    );
    this.name = 'PrivateDestinationError';
  }
}

/**
 * A connection's DNS lookup that refuses non-public addresses. The check sits in the lookup, so
 * the address judged is the one connected to: a name that resolves to a public address for a
 * check and to 127.0.0.1 for the connection (DNS rebinding) cannot slip past. Any non-public
 * address in the answer refuses the whole name, so happy-eyeballs cannot pick the bad one either.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', undefined);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(new PrivateDestinationError(hostname, bad.address), '', undefined);
    const first = addresses[0];
    if (options.all) return callback(null, addresses);
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    return callback(null, first.address, first.family);
  });
};
