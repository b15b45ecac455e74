import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      defaultPlan: 'standard',
      webhookAllowPrivate: false,
      storageAllowPrivate: false,
      logLevel: 'info',
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.publicUrl).toBe('http://localhost:8080');
    // Unset: links come from each request's address (src/http/link-base.ts).
    expect(c.publicUrlConfigured).toBe(false);
    expect(c.bodyLimit).toBe(32 * 1024 * 1024);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      ANNOTARY_DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      ANNOTARY_PUBLIC_URL: 'https://annotary.example.com/',
      ANNOTARY_SECRET_KEY: 'ab'.repeat(32),
      ANNOTARY_BOOTSTRAP_API_KEY: 'ak_0123456789abcdef',
      ANNOTARY_BOOTSTRAP_EMAIL: 'Ops@Example.com',
      ANNOTARY_DEFAULT_PLAN: 'professional',
      ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'TRUE',
      ANNOTARY_STORAGE_ALLOW_PRIVATE: 'true',
      LOG_LEVEL: 'warn',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://127.0.0.1:6379',
      publicUrl: 'https://annotary.example.com',
      publicUrlConfigured: true,
      bootstrapApiKey: 'ak_0123456789abcdef',
      bootstrapEmail: 'ops@example.com',
      defaultPlan: 'professional',
      webhookAllowPrivate: true,
      storageAllowPrivate: true,
      logLevel: 'warn',
    });
    expect(c.secretKey?.length).toBe(32);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x/y'],
    ['REDIS_URL', 'not a url'],
    ['ANNOTARY_PUBLIC_URL', 'ftp://x'],
    ['ANNOTARY_SECRET_KEY', 'short'],
    ['ANNOTARY_BOOTSTRAP_API_KEY', 'tiny'],
    ['ANNOTARY_BOOTSTRAP_EMAIL', 'nobody'],
    ['ANNOTARY_DEFAULT_PLAN', 'gold'],
    ['ANNOTARY_WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
  ])('stops on a bad %s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name}:`));
  });

  it('reads ANNOTARY_TRUST_PROXY: off by default, true, a hop count or addresses and CIDRs', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ ANNOTARY_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ ANNOTARY_TRUST_PROXY: 'TRUE' }).trustProxy).toBe(true);
    expect(loadConfig({ ANNOTARY_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ANNOTARY_TRUST_PROXY: '10.0.0.1, 172.16.0.0/12,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.1',
      '172.16.0.0/12',
      'fd00::/8',
    ]);
    for (const bad of ['0', 'proxy.local', '10.0.0.0/33', '10.0.0.1/8/1', 'yes']) {
      expect(() => loadConfig({ ANNOTARY_TRUST_PROXY: bad })).toThrow(/ANNOTARY_TRUST_PROXY/);
    }
  });
});
