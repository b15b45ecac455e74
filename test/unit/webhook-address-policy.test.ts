import { describe, expect, it } from 'vitest';
import { ipLiteral, isPublicAddress } from '../../src/adapters/webhook/address-policy.js';

describe('webhook address policy', () => {
  it('refuses loopback, private, link-local, unspecified, multicast and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fe80::1',
      'fd00::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      'not-an-address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('refuses private IPv4 addresses in their NAT64, 6to4 and IPv4-compatible forms', () => {
    for (const address of [
      '64:ff9b::7f00:1', // 127.0.0.1
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe', // 169.254.169.254
      '64:ff9b::a00:1', // 10.0.0.1
      '64:ff9b::c0a8:101', // 192.168.1.1
      '64:ff9b:1::a00:1', // local-use NAT64
      '64:ff9b:1:ffff::808:808',
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::1',
      '2002:ac10:1:1::1', // 172.16.0.1
      '2002:c0a8:101::', // 192.168.1.1
      '::7f00:1', // IPv4-compatible 127.0.0.1
      '::10.0.0.1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808', // NAT64 of 8.8.8.8
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:db9::1',
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('tells IP literals from names, brackets and all', () => {
    expect(ipLiteral('[::1]')).toBe('::1');
    expect(ipLiteral('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteral('localhost')).toBeUndefined();
    expect(ipLiteral('example.com')).toBeUndefined();
  });
});
