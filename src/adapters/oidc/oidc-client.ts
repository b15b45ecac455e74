import * as client from 'openid-client';
import type { OidcProviderConfig } from '../../oidc-config.js';

/*
 * The relying party's side of OpenID Connect, through openid-client: discovery from the issuer,
 * the authorization request (code flow with PKCE, state and nonce), the code exchange with the
 * ID token's signature and claims checked, and the provider's end-session address.
 *
 * Discovered metadata is kept for an hour per provider; the provider's keys are fetched for each
 * sign-in (rare enough), so a rotated key is picked up at once.
 */

const METADATA_TTL_MS = 3_600_000;
const TIMEOUT_SECONDS = 10;

/** The checks of one sign-in, kept by the browser (sealed) between the two legs. */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcResult {
  /** The ID token's claims, completed from the userinfo endpoint when a wanted claim is missing. */
  claims: Record<string, unknown>;
  idToken: string;
}

/** Why a provider's answer was refused, in words for the person and a code for the logs. */
export class OidcRefusal extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'OidcRefusal';
  }
}

interface Cached {
  at: number;
  metadata: client.ServerMetadata;
}

function insecure(provider: OidcProviderConfig): boolean {
  return new URL(provider.issuer).protocol === 'http:';
}

export class OidcClient {
  private readonly metadata = new Map<string, Cached>();

  /** `now` gives the server's clock (tests steer it); token times are checked against it. */
  constructor(private readonly now: () => number) {}

  private async configuration(provider: OidcProviderConfig): Promise<client.Configuration> {
    const auth = provider.clientSecret ? client.ClientSecretBasic(provider.clientSecret) : client.None();
    const skew = Math.round((this.now() - Date.now()) / 1000);
    const meta: Partial<client.ClientMetadata> = { [client.clockSkew]: skew };
    const cached = this.metadata.get(provider.id);
    let config: client.Configuration;
    if (cached && Date.now() - cached.at < METADATA_TTL_MS) {
      config = new client.Configuration(cached.metadata, provider.clientId, meta, auth);
    } else {
      try {
        config = await client.discovery(new URL(provider.issuer), provider.clientId, meta, auth, {
          timeout: TIMEOUT_SECONDS,
          ...(insecure(provider) ? { execute: [client.allowInsecureRequests] } : {}),
        });
      } catch (err) {
        throw new OidcRefusal('discovery', `the identity provider could not be reached (${describe(err)})`);
      }
      this.metadata.set(provider.id, { at: Date.now(), metadata: config.serverMetadata() });
    }
    if (insecure(provider)) client.allowInsecureRequests(config);
    // The ID token's signature is checked against the provider's published keys, though it came
    // straight from the token endpoint (which the specification would allow to trust).
    client.enableNonRepudiationChecks(config);
    config.timeout = TIMEOUT_SECONDS;
    return config;
  }

  /** Fresh checks and the provider's authorization address that carries them. */
  async authorizationUrl(
    provider: OidcProviderConfig,
    redirectUri: string,
  ): Promise<{ url: string; checks: OidcChecks }> {
    const config = await this.configuration(provider);
    const checks = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: provider.scopes,
      response_type: 'code',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, checks };
  }

  /**
   * Exchanges the code of the provider's answer (`currentUrl`: the callback as the browser
   * reached it) and verifies the ID token: signature by the provider's keys, issuer, audience,
   * nonce, expiry; state and PKCE are checked on the way.
   */
  async finish(
    provider: OidcProviderConfig,
    currentUrl: URL,
    checks: OidcChecks,
    wanted: readonly string[],
  ): Promise<OidcResult> {
    const config = await this.configuration(provider);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
    } catch (err) {
      throw refusalOf(err);
    }
    const idClaims = tokens.claims();
    if (!idClaims || !tokens.id_token) throw new OidcRefusal('no-id-token', 'the identity provider sent no ID token');
    const claims: Record<string, unknown> = { ...idClaims };
    const missing = wanted.some((name) => claims[name] === undefined);
    if (missing && config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        for (const [k, v] of Object.entries(info)) if (claims[k] === undefined) claims[k] = v;
      } catch (err) {
        throw new OidcRefusal('userinfo', `the identity provider's userinfo could not be read (${describe(err)})`);
      }
    }
    return { claims, idToken: tokens.id_token };
  }

  /** The provider's end-session address, or undefined when it offers none. */
  async endSessionUrl(
    provider: OidcProviderConfig,
    idToken: string,
    postLogoutRedirectUri: string,
  ): Promise<string | undefined> {
    const config = await this.configuration(provider);
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(config, {
      id_token_hint: idToken,
      post_logout_redirect_uri: postLogoutRedirectUri,
    }).href;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`.slice(0, 300);
  }
  return 'unknown error';
}

/** openid-client's errors as words a person can act on; no token or secret is in them. */
function refusalOf(err: unknown): OidcRefusal {
  if (err instanceof client.AuthorizationResponseError) {
    return new OidcRefusal('provider-error', `the identity provider refused the sign-in (${err.error})`);
  }
  if (err instanceof client.ResponseBodyError) {
    if (err.error === 'invalid_grant') {
      return new OidcRefusal(
        'code-refused',
        'the identity provider refused the sign-in code: it was used already or has expired (start again)',
      );
    }
    return new OidcRefusal('token-error', `the identity provider refused the code exchange (${err.error})`);
  }
  const codeOf = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '');
  const code = codeOf(err) || (err instanceof Error ? codeOf(err.cause) : '');
  const message = describe(err);
  if (/"state"/.test(message)) {
    return new OidcRefusal(
      'state',
      'the sign-in answer does not belong to the sign-in this browser started (start again)',
    );
  }
  if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') {
    return new OidcRefusal('expired', 'the ID token has expired or is not yet valid (check both clocks)');
  }
  const badSignature = /signature verification failed/i.test(message);
  if (badSignature || code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'OAUTH_KEY_SELECTION_FAILED') {
    return new OidcRefusal('signature', "the ID token is not signed by the identity provider's keys");
  }
  if (/"nonce"/.test(message)) return new OidcRefusal('nonce', 'the ID token was not made for this sign-in (nonce)');
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED') {
    return new OidcRefusal('claims', `the ID token's claims do not check out (${message.slice(0, 200)})`);
  }
  return new OidcRefusal('invalid', `the identity provider's answer could not be verified (${describe(err)})`);
}
