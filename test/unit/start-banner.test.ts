import type { AddressInfo } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startBanner } from '../../src/cli/start-banner.js';
import { loadConfig } from '../../src/config.js';

/* What `annotary serve` prints at start, for the ways people set HOST and ANNOTARY_PUBLIC_URL. */

const LINK = 'http://localhost:8080/password/tok_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const at = (address: string, port = 8080): AddressInfo => ({
  address,
  port,
  family: address.includes(':') ? 'IPv6' : 'IPv4',
});
const nic = (address: string, internal = false): NetworkInterfaceInfo => ({
  address,
  internal,
  family: 'IPv4',
  netmask: '255.255.255.0',
  mac: '00:00:00:00:00:00',
  cidr: `${address}/24`,
});
const interfaces = { lo: [nic('127.0.0.1', true)], eth0: [nic('10.1.2.3')], wlan0: [nic('192.168.7.9')] };
const banner = (env: Record<string, string>, address: AddressInfo) =>
  startBanner({ config: loadConfig(env), address, engine: 'sqlite', ownerPasswordLink: LINK, interfaces });

describe('the start banner', () => {
  it('on 0.0.0.0 without a public URL: the link on each address, and a warning', () => {
    const text = banner({}, at('0.0.0.0'));
    for (const base of [
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://10.1.2.3:8080',
      'http://192.168.7.9:8080',
    ]) {
      expect(text).toContain(`\n    ${base}/password/tok_`);
    }
    expect(text).toContain('Open it on the address you will use the console at');
    expect(text).toContain('Warning: ANNOTARY_PUBLIC_URL is not set while the server listens on 0.0.0.0.');
    expect(text).toContain('e.g. http://10.1.2.3:8080.');
  });

  it('on one address: the link there; on loopback no warning', () => {
    const loopback = banner({ HOST: '127.0.0.1' }, at('127.0.0.1', 9000));
    expect(loopback).toMatch(/valid 24 h\):\n {4}http:\/\/127\.0\.0\.1:9000\/password\/tok_/);
    expect(loopback).not.toContain('Warning');
    expect(loopback).not.toContain('localhost');
    const lan = banner({ HOST: '10.1.2.3' }, at('10.1.2.3'));
    expect(lan).toContain('    http://10.1.2.3:8080/password/tok_');
    expect(lan).toContain('Warning: ANNOTARY_PUBLIC_URL is not set while the server listens on 10.1.2.3.');
  });

  it('with ANNOTARY_PUBLIC_URL: that address alone, and no warning', () => {
    const text = banner({ ANNOTARY_PUBLIC_URL: 'https://labels.example.com/' }, at('0.0.0.0'));
    expect(text).toContain('valid 24 h):\n    https://labels.example.com/password/tok_');
    expect(text).toContain('  API:  https://labels.example.com/v2');
    expect(text).not.toContain('10.1.2.3');
    expect(text).not.toContain('Warning');
  });
});
