import { describe, expect, it } from 'vitest';
import { namesPrivateHost } from './private-host';

describe('namesPrivateHost', () => {
  it('names loopback, private and link-local hosts', () => {
    for (const url of [
      'http://localhost:9000/hook',
      'http://api.localhost/hook',
      'http://127.0.0.1:9/hook',
      'https://10.1.2.3/x',
      'http://172.20.0.5/x',
      'http://192.168.1.10/x',
      'http://169.254.169.254/latest',
      'http://100.64.0.1/x',
      'http://[::1]:8080/x',
      'http://[fd00::1]/x',
      'http://[fe80::1]/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      expect(namesPrivateHost(url), url).toBe(true);
    }
  });

  it('leaves public hosts, names and unparsable text alone', () => {
    for (const url of [
      'https://hooks.example.com/annotary',
      'http://172.32.0.1/x',
      'http://8.8.8.8/x',
      'http://[2001:db8::1]/x',
      'not a url',
      '',
    ]) {
      expect(namesPrivateHost(url), url).toBe(false);
    }
  });
});
