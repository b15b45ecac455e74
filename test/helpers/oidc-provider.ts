import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/*
 * A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1 for tests: one
 * confidential client, people given by the test (login = account id; any password is accepted
 * by the provider's own login page), consent granted without asking, PKCE required.
 * `serveForeignKeys` makes its JWKS answer another key than the one its tokens are signed with.
 */

export interface OidcPerson {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, OidcPerson>;
  /** When true, /jwks answers a key the tokens were not signed with. */
  serveForeignKeys: boolean;
  close(): Promise<void>;
}

function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

function publicPart(jwk: ReturnType<typeof signingKey>) {
  return { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: jwk.kid, alg: jwk.alg, use: jwk.use };
}

/**
 * Starts the provider; `redirectUris` and `postLogoutUris` are the relying party's addresses
 * (functions when the relying party starts after the provider: read at the first request).
 */
export async function startOidcProvider(opts: {
  redirectUris: string[] | (() => string[]);
  postLogoutUris?: string[] | (() => string[]);
}): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'annotary-test';
  const clientSecret = randomUUID();
  const people = new Map<string, OidcPerson>();
  const key = signingKey();
  const foreign = publicPart(signingKey());
  // Another key under the same kid: the signature, not the key's name, must fail.
  foreign.kid = key.kid;
  const listOf = (v: string[] | (() => string[]) | undefined) => (typeof v === 'function' ? v() : (v ?? []));
  const makeProvider = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: listOf(opts.redirectUris),
          post_logout_redirect_uris: listOf(opts.postLogoutUris),
          response_types: ['code'],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [key] },
      cookies: { keys: [randomUUID()] },
      pkce: { required: () => true },
      scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
      claims: { email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
      // The claims the scopes ask for go into the ID token (as Keycloak and Google put them).
      conformIdTokenClaims: false,
      ttl: { IdToken: 60 },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      async findAccount(_ctx: KoaContextWithOIDC, sub: string) {
        const person = people.get(sub);
        if (!person) return undefined;
        return { accountId: sub, claims: () => ({ sub, ...person }) };
      },
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const { client, session } = ctx.oidc;
        if (!client || !session?.accountId) return undefined;
        const grantId = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
        grant.addOIDCScope('openid email profile groups');
        await grant.save();
        return grant;
      },
    });
  const state = { serveForeignKeys: false };
  let callback: ReturnType<Provider['callback']> | undefined;
  server.on('request', (req, res) => {
    if (state.serveForeignKeys && req.url === '/jwks') {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
      res.end(JSON.stringify({ keys: [foreign] }));
      return;
    }
    callback ??= makeProvider().callback();
    void callback(req, res);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    get serveForeignKeys() {
      return state.serveForeignKeys;
    },
    set serveForeignKeys(v: boolean) {
      state.serveForeignKeys = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies of one browser at the provider: a jar over fetch, redirects followed by hand. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Signs `login` in at the provider, as its login page would be used: from the authorization
 * address the relying party sent the browser to, through the login form, to the redirect back
 * to the relying party; answers that redirect's address (the callback with code and state).
 */
export async function loginAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Jar();
  let url = authorizationUrl;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(res);
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location') ?? '', url);
      if (!next.href.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !html.includes('name="login"')) {
      throw new Error(`the provider answered ${res.status} without its login form: ${html.slice(0, 300)}`);
    }
    const form = new URLSearchParams({ prompt: 'login', login, password: 'any password' });
    const posted = await fetch(new URL(action, url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    jar.take(posted);
    url = new URL(posted.headers.get('location') ?? '', url).href;
  }
  throw new Error('too many redirects at the provider');
}
