import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { grantsOf, groupsOf, safeNext } from '../../src/services/identity/oidc-sign-in.service.js';

const ISSUER = 'https://id.example.com/realms/staff';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('the configuration was accepted');
}

describe('OpenID Connect settings from the environment', () => {
  it('reads one provider from the ANNOTARY_OIDC_* variables with their defaults', () => {
    const config = loadConfig({
      ANNOTARY_OIDC_ISSUER: `${ISSUER}/`,
      ANNOTARY_OIDC_CLIENT_ID: 'annotary',
      ANNOTARY_OIDC_CLIENT_SECRET: 's3cret',
      ANNOTARY_OIDC_GROUPS_CLAIM: 'groups',
      ANNOTARY_OIDC_GROUP_ROLES: '{"staff-admins": {"organizationRole": "admin"}}',
      ANNOTARY_OIDC_ALLOWED_DOMAINS: 'Example.com, @example.org',
    });
    expect(config.oidcProviders).toEqual([
      {
        id: 'sso',
        name: 'single sign-on',
        issuer: ISSUER,
        clientId: 'annotary',
        clientSecret: 's3cret',
        scopes: 'openid email profile',
        emailClaim: 'email',
        groupsClaim: 'groups',
        groupRoles: { 'staff-admins': { organizationRole: 'admin', projects: {} } },
        defaultRole: undefined,
        allowedDomains: ['example.com', 'example.org'],
        organization: undefined,
      },
    ]);
    expect(config.passwordSignIn).toBe(true);
    expect(loadConfig({}).oidcProviders).toEqual([]);
  });

  it('reads several providers from ANNOTARY_OIDC_PROVIDERS', () => {
    const config = loadConfig({
      ANNOTARY_OIDC_PROVIDERS: JSON.stringify([
        { id: 'staff', name: 'Staff', issuer: ISSUER, clientId: 'a', defaultRole: 'member' },
        {
          id: 'google',
          name: 'Google',
          issuer: 'https://accounts.google.com',
          clientId: 'b',
          allowedDomains: ['example.com'],
        },
      ]),
      ANNOTARY_PASSWORD_SIGNIN: 'false',
    });
    expect(config.oidcProviders.map((p) => [p.id, p.name, p.defaultRole, p.allowedDomains])).toEqual([
      ['staff', 'Staff', 'member', []],
      ['google', 'Google', undefined, ['example.com']],
    ]);
    expect(config.passwordSignIn).toBe(false);
  });

  it('stops start-up naming the variable and setting that is wrong', () => {
    const one = { ANNOTARY_OIDC_ISSUER: ISSUER, ANNOTARY_OIDC_CLIENT_ID: 'a' };
    expect(configError({ ANNOTARY_OIDC_ISSUER: 'http://id.example.com', ANNOTARY_OIDC_CLIENT_ID: 'a' }).variable).toBe(
      'ANNOTARY_OIDC_ISSUER',
    );
    expect(configError({ ANNOTARY_OIDC_ISSUER: ISSUER }).variable).toBe('ANNOTARY_OIDC_CLIENT_ID');
    expect(configError({ ...one, ANNOTARY_OIDC_DEFAULT_ROLE: 'king' }).message).toBe(
      'ANNOTARY_OIDC_DEFAULT_ROLE: must be one of owner, admin, member',
    );
    expect(configError({ ...one, ANNOTARY_OIDC_GROUP_ROLES: '{"a": {"organizationRole": "admin"}}' }).variable).toBe(
      'ANNOTARY_OIDC_GROUPS_CLAIM',
    );
    expect(
      configError({
        ...one,
        ANNOTARY_OIDC_GROUPS_CLAIM: 'g',
        ANNOTARY_OIDC_GROUP_ROLES: '{"a": {"projects": {"p1": "Boss"}}}',
      }).message,
    ).toBe('ANNOTARY_OIDC_GROUP_ROLES "a".projects "p1": must be one of Manager, Lead, Reviewer, Labeler');
    expect(configError({ ...one, ANNOTARY_OIDC_ALLOWED_DOMAINS: 'not a domain' }).variable).toBe(
      'ANNOTARY_OIDC_ALLOWED_DOMAINS',
    );
    expect(configError({ ...one, ANNOTARY_OIDC_PROVIDERS: '[]' }).variable).toBe('ANNOTARY_OIDC_PROVIDERS');
    expect(
      configError({
        ANNOTARY_OIDC_PROVIDERS: JSON.stringify([
          { issuer: ISSUER, clientId: 'a' },
          { issuer: ISSUER, clientId: 'b' },
        ]),
      }).message,
    ).toBe('ANNOTARY_OIDC_PROVIDERS[1].id: "sso" is used twice');
    expect(configError({ ANNOTARY_PASSWORD_SIGNIN: 'false' }).variable).toBe('ANNOTARY_PASSWORD_SIGNIN');
  });
});

describe('what a person’s groups give', () => {
  const [provider] = loadConfig({
    ANNOTARY_OIDC_ISSUER: ISSUER,
    ANNOTARY_OIDC_CLIENT_ID: 'a',
    ANNOTARY_OIDC_GROUPS_CLAIM: 'groups',
    ANNOTARY_OIDC_GROUP_ROLES: JSON.stringify({
      admins: { organizationRole: 'admin' },
      labelers: { projects: { p1: 'Labeler', p2: 'Labeler' } },
      leads: { organizationRole: 'member', projects: { p1: 'Lead' } },
    }),
  }).oidcProviders;

  it('takes the highest organization role and, per project, the highest project role', () => {
    if (!provider) throw new Error('no provider');
    expect(grantsOf(provider, ['labelers', 'leads', 'admins', 'kitchen'])).toEqual({
      orgRole: 'admin',
      projects: { p1: 'Lead', p2: 'Labeler' },
      matched: ['labelers', 'leads', 'admins'],
    });
    expect(grantsOf(provider, ['kitchen'])).toEqual({ orgRole: undefined, projects: {}, matched: [] });
    expect(groupsOf('admins')).toEqual(['admins']);
    expect(groupsOf(['a', 3, 'b'])).toEqual(['a', 'b']);
    expect(groupsOf(undefined)).toEqual([]);
  });

  it('sends a person only to a path of the console after sign-in', () => {
    expect(safeNext('/projects?x=1')).toBe('/projects?x=1');
    for (const bad of [
      'https://evil.example',
      '//evil.example',
      '/\\evil.example',
      '/\t/evil.example',
      '/a\\b',
      'projects',
      undefined,
    ]) {
      expect(safeNext(bad)).toBe('/');
    }
  });
});
