/*
 * OpenID Connect providers from the environment. Two forms:
 *
 * - one provider: ANNOTARY_OIDC_ISSUER, ANNOTARY_OIDC_CLIENT_ID, ANNOTARY_OIDC_CLIENT_SECRET and
 *   the optional ANNOTARY_OIDC_<SETTING> variables below;
 * - several: ANNOTARY_OIDC_PROVIDERS, a JSON array of objects with the same settings in
 *   camelCase (issuer, clientId, clientSecret, id, name, scopes, emailClaim, groupsClaim,
 *   groupRoles, defaultRole, allowedDomains, organization).
 *
 * A bad value stops start-up naming the variable (and, in the JSON form, the entry and setting).
 */

export const OIDC_ORG_ROLES = ['owner', 'admin', 'member'] as const;
export type OidcOrgRole = (typeof OIDC_ORG_ROLES)[number];
export const OIDC_PROJECT_ROLES = ['Manager', 'Lead', 'Reviewer', 'Labeler'] as const;
export type OidcProjectRole = (typeof OIDC_PROJECT_ROLES)[number];

/** What one group of the provider gives: an organization role and roles on projects (by id). */
export interface OidcGroupGrant {
  organizationRole?: OidcOrgRole | undefined;
  projects: Record<string, OidcProjectRole>;
}

export interface OidcProviderConfig {
  /** In the callback path (/v2/session/oidc/<id>/callback) and audit records: [a-z0-9-]. */
  id: string;
  /** The sign-in button's words: "Sign in with <name>". */
  name: string;
  issuer: string;
  clientId: string;
  /** Unset: a public client (PKCE only, no client authentication). */
  clientSecret: string | undefined;
  scopes: string;
  /** The ID-token claim holding the person's e-mail address. */
  emailClaim: string;
  /** The ID-token claim holding the person's groups; unset means groups are not read. */
  groupsClaim: string | undefined;
  /** Group name -> what it grants; with a groups claim, a person needs a group found here. */
  groupRoles: Record<string, OidcGroupGrant>;
  /**
   * Without a groups claim: the organization role of people created on their first sign-in;
   * unset means only people who already have an account may sign in.
   */
  defaultRole: OidcOrgRole | undefined;
  /** E-mail domains allowed to sign in (lower case); empty allows any. */
  allowedDomains: string[];
  /** The organization new people join; unset means the only organization of the install. */
  organization: string | undefined;
}

export class OidcConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = 'OidcConfigError';
  }
}

type Env = Record<string, string | undefined>;

const ID_RE = /^[a-z0-9][a-z0-9-]{0,39}$/;
const DOMAIN_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

function issuerOf(raw: unknown, where: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new OidcConfigError(where, 'is required');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new OidcConfigError(where, 'is not a valid URL');
  }
  // Plain http only for a provider on this machine (tests, a provider beside the server).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new OidcConfigError(where, 'must be an https:// URL (http:// only on 127.0.0.1 or localhost)');
  }
  return raw.trim().replace(/\/+$/, '');
}

function stringOf(raw: unknown, where: string, fallback: string | undefined): string | undefined {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string') throw new OidcConfigError(where, 'must be a string');
  return raw.trim() || fallback;
}

function roleOf<T extends string>(raw: unknown, allowed: readonly T[], where: string): T | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const hit = allowed.find((a) => a === raw);
  if (!hit) throw new OidcConfigError(where, `must be one of ${allowed.join(', ')}`);
  return hit;
}

function domainsOf(raw: unknown, where: string): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const list = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(list)) throw new OidcConfigError(where, 'must be a list of e-mail domains');
  return list.map((d: unknown) => {
    const domain = typeof d === 'string' ? d.trim().toLowerCase().replace(/^@/, '') : '';
    if (!DOMAIN_RE.test(domain)) throw new OidcConfigError(where, `"${String(d)}" is not an e-mail domain`);
    return domain;
  });
}

function groupRolesOf(raw: unknown, where: string): Record<string, OidcGroupGrant> {
  if (raw === undefined || raw === null || raw === '') return {};
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new OidcConfigError(where, 'is not valid JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OidcConfigError(where, 'must map group names to {"organizationRole": ..., "projects": {...}}');
  }
  const out: Record<string, OidcGroupGrant> = {};
  for (const [group, grant] of Object.entries(value)) {
    const at = `${where} "${group}"`;
    if (typeof grant !== 'object' || grant === null || Array.isArray(grant)) {
      throw new OidcConfigError(at, 'must be an object with organizationRole and/or projects');
    }
    const g = grant as Record<string, unknown>;
    const unknownKey = Object.keys(g).find((k) => k !== 'organizationRole' && k !== 'projects');
    if (unknownKey) throw new OidcConfigError(at, `unknown setting "${unknownKey}"`);
    const projects: Record<string, OidcProjectRole> = {};
    if (g.projects !== undefined) {
      if (typeof g.projects !== 'object' || g.projects === null || Array.isArray(g.projects)) {
        throw new OidcConfigError(`${at}.projects`, 'must map project ids to Manager, Lead, Reviewer or Labeler');
      }
      for (const [projectId, role] of Object.entries(g.projects)) {
        const r = roleOf(role, OIDC_PROJECT_ROLES, `${at}.projects "${projectId}"`);
        if (!r) throw new OidcConfigError(`${at}.projects "${projectId}"`, 'needs a role');
        projects[projectId] = r;
      }
    }
    const organizationRole = roleOf(g.organizationRole, OIDC_ORG_ROLES, `${at}.organizationRole`);
    if (!organizationRole && Object.keys(projects).length === 0) {
      throw new OidcConfigError(at, 'grants nothing: give it an organizationRole or projects');
    }
    out[group] = { organizationRole, projects };
  }
  return out;
}

/** One provider from its settings; `at(setting)` names where a bad setting came from. */
function providerOf(s: Record<string, unknown>, at: (setting: string) => string): OidcProviderConfig {
  const id = stringOf(s.id, at('id'), 'sso') ?? 'sso';
  if (!ID_RE.test(id))
    throw new OidcConfigError(at('id'), 'must be 1 to 40 of a-z, 0-9 and -, starting with a letter or digit');
  const clientId = stringOf(s.clientId, at('clientId'), undefined);
  if (!clientId) throw new OidcConfigError(at('clientId'), 'is required');
  const groupsClaim = stringOf(s.groupsClaim, at('groupsClaim'), undefined);
  const groupRoles = groupRolesOf(s.groupRoles, at('groupRoles'));
  if (!groupsClaim && Object.keys(groupRoles).length > 0) {
    throw new OidcConfigError(at('groupsClaim'), 'is required when group roles are given');
  }
  return {
    id,
    name: stringOf(s.name, at('name'), 'single sign-on') ?? 'single sign-on',
    issuer: issuerOf(s.issuer, at('issuer')),
    clientId,
    clientSecret: stringOf(s.clientSecret, at('clientSecret'), undefined),
    scopes: stringOf(s.scopes, at('scopes'), undefined) ?? `openid email profile`,
    emailClaim: stringOf(s.emailClaim, at('emailClaim'), 'email') ?? 'email',
    groupsClaim,
    groupRoles,
    defaultRole: roleOf(s.defaultRole, OIDC_ORG_ROLES, at('defaultRole')),
    allowedDomains: domainsOf(s.allowedDomains, at('allowedDomains')),
    organization: stringOf(s.organization, at('organization'), undefined),
  };
}

const SHORTHAND: Record<string, string> = {
  id: 'ANNOTARY_OIDC_ID',
  name: 'ANNOTARY_OIDC_NAME',
  issuer: 'ANNOTARY_OIDC_ISSUER',
  clientId: 'ANNOTARY_OIDC_CLIENT_ID',
  clientSecret: 'ANNOTARY_OIDC_CLIENT_SECRET',
  scopes: 'ANNOTARY_OIDC_SCOPES',
  emailClaim: 'ANNOTARY_OIDC_EMAIL_CLAIM',
  groupsClaim: 'ANNOTARY_OIDC_GROUPS_CLAIM',
  groupRoles: 'ANNOTARY_OIDC_GROUP_ROLES',
  defaultRole: 'ANNOTARY_OIDC_DEFAULT_ROLE',
  allowedDomains: 'ANNOTARY_OIDC_ALLOWED_DOMAINS',
  organization: 'ANNOTARY_OIDC_ORGANIZATION',
};

/** The configured providers (none when neither form is set). */
export function loadOidcProviders(env: Env): OidcProviderConfig[] {
  const many = env.ANNOTARY_OIDC_PROVIDERS?.trim();
  const single = Object.values(SHORTHAND).some((name) => (env[name] ?? '') !== '');
  if (many && single) {
    throw new OidcConfigError(
      'ANNOTARY_OIDC_PROVIDERS',
      'set either it or the ANNOTARY_OIDC_* variables of one provider, not both',
    );
  }
  if (single) {
    const settings = Object.fromEntries(Object.entries(SHORTHAND).map(([k, name]) => [k, env[name]]));
    return [providerOf(settings, (setting) => SHORTHAND[setting] ?? setting)];
  }
  if (!many) return [];
  let list: unknown;
  try {
    list = JSON.parse(many);
  } catch {
    throw new OidcConfigError('ANNOTARY_OIDC_PROVIDERS', 'is not valid JSON');
  }
  if (!Array.isArray(list) || list.length === 0) {
    throw new OidcConfigError('ANNOTARY_OIDC_PROVIDERS', 'must be a JSON array of providers');
  }
  const providers = list.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new OidcConfigError(`ANNOTARY_OIDC_PROVIDERS[${i}]`, 'must be an object');
    }
    return providerOf(entry as Record<string, unknown>, (setting) => `ANNOTARY_OIDC_PROVIDERS[${i}].${setting}`);
  });
  const ids = new Set<string>();
  providers.forEach((p, i) => {
    if (ids.has(p.id)) throw new OidcConfigError(`ANNOTARY_OIDC_PROVIDERS[${i}].id`, `"${p.id}" is used twice`);
    ids.add(p.id);
  });
  return providers;
}
