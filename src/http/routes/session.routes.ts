import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';
import { issueApiKey } from '../../services/identity/identity.service.js';
import { describeLink, usePasswordLink } from '../../services/identity/password-link.service.js';
import {
  authenticateSession,
  createSession,
  endSession,
  SESSION_COOKIE,
  sessionView,
} from '../../services/identity/session.service.js';
import { signIn } from '../../services/identity/sign-in.service.js';
import {
  finishOidcSignIn,
  listProviders,
  OIDC_FLOW_COOKIE,
  OIDC_FLOW_MINUTES,
  OIDC_LOGOUT_COOKIE,
  providerSignOutUrl,
  startOidcSignIn,
} from '../../services/identity/oidc-sign-in.service.js';
import { ErrorResponse } from '../../schemas/envelope.js';
import {
  LinkTokenParams,
  NewApiKeyResponse,
  OidcCallbackQuery,
  OidcProviderParams,
  OidcStartQuery,
  PasswordLinkView,
  SessionResponse,
  SessionStateResponse,
  SignInOptionsResponse,
  SignInRequest,
  SignOutResponse,
  UsePasswordLinkRequest,
} from '../../schemas/session.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { created, ok } from '../reply.js';

const tags = ['session'];
const publicRoute = { public: true };

/** Options of the server's cookies: Secure when the address the person reached is https (a proxy's, when trusted). */
function cookieOptions(ctx: AppContext, req: FastifyRequest, path: string) {
  return { httpOnly: true, sameSite: 'lax' as const, path, secure: linkBase(ctx, req).startsWith('https:') };
}

/** Sets the session cookie and answers who signed in. */
async function startedSession(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, token: string) {
  const principal = await authenticateSession(ctx, token);
  if (!principal) throw new AppError('INTERNAL', 'the new session could not be read back');
  void reply.setCookie(SESSION_COOKIE, token, cookieOptions(ctx, req, '/'));
  return ok(await sessionView(ctx, principal));
}

const OIDC_PATH = '/v2/session/oidc/';
const callbackUri = (ctx: AppContext, req: FastifyRequest, provider: string) =>
  `${linkBase(ctx, req)}${OIDC_PATH}${encodeURIComponent(provider)}/callback`;

/** A browser (it asked for a page) is sent back to the sign-in page with the words; others get the envelope. */
function wantsPage(req: FastifyRequest): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

export const sessionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/session',
    {
      config: publicRoute,
      schema: {
        tags,
        operationId: 'signIn',
        summary: 'Sign in: sets the session cookie',
        description:
          'Email and password, or an API key pasted once. Wrong e-mail and wrong password answer the same 401. ' +
          'At most 10 attempts a minute per account and 30 per client address (429 with Retry-After).',
        body: SignInRequest,
        security: [],
        response: { 200: SessionResponse, 401: ErrorResponse, 429: ErrorResponse },
      },
    },
    async (req, reply) => {
      const { token } = await signIn(ctx, req.body, req.ip);
      return startedSession(ctx, req, reply, token);
    },
  );
  app.get(
    '/session',
    {
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'Who am I: works with the session cookie or the apikey header',
        response: { 200: SessionResponse },
      },
    },
    async (req) => ok(await sessionView(ctx, principalOf(req))),
  );
  app.get(
    '/session/state',
    {
      config: publicRoute,
      schema: {
        tags,
        operationId: 'getSessionState',
        summary: 'Whether the caller is signed in: 200 with signedIn false rather than a 401',
        description:
          'For a browser asking before anyone signed in (the console), where a 401 would be logged as an error. ' +
          'Signed in (session cookie or apikey header): signedIn true and the session as GET /session answers it. ' +
          'No cookie, or one whose session has ended: signedIn false. A wrong apikey header is still a 401.',
        security: [],
        response: { 200: SessionStateResponse, 401: ErrorResponse },
      },
    },
    async (req) => {
      if (req.principal) return ok({ signedIn: true, session: await sessionView(ctx, req.principal) });
      if (req.headers.apikey !== undefined) throw new AppError('UNAUTHENTICATED', 'invalid API key');
      return ok({ signedIn: false });
    },
  );
  app.delete(
    '/session',
    {
      schema: {
        tags,
        operationId: 'signOut',
        summary: 'Sign out: ends the session and clears the cookie',
        response: { 200: SignOutResponse },
      },
    },
    async (req, reply) => {
      const signedOut = await endSession(ctx, principalOf(req));
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      const logout = req.cookies[OIDC_LOGOUT_COOKIE];
      if (!logout || !signedOut) return ok({ signedOut });
      void reply.clearCookie(OIDC_LOGOUT_COOKIE, { path: '/v2/session' });
      const endSessionUrl = await providerSignOutUrl(ctx, logout, `${linkBase(ctx, req)}/signin`);
      return ok(endSessionUrl ? { signedOut, endSessionUrl } : { signedOut });
    },
  );
  app.get(
    '/session/providers',
    {
      config: publicRoute,
      schema: {
        tags,
        operationId: 'getSignInOptions',
        summary: 'How people may sign in: the OpenID Connect providers, and whether passwords are accepted',
        security: [],
        response: { 200: SignInOptionsResponse },
      },
    },
    async () => ok(await listProviders(ctx)),
  );
  // The two legs of an OpenID Connect sign-in are browser navigations (redirects), not API calls:
  // documented in docs/operations.md, left out of the OpenAPI document.
  app.get(
    '/session/oidc/:provider/start',
    { config: publicRoute, schema: { hide: true, params: OidcProviderParams, querystring: OidcStartQuery } },
    async (req, reply) => {
      const { provider } = req.params;
      const { url, flowCookie } = await startOidcSignIn(ctx, provider, callbackUri(ctx, req, provider), req.query.next);
      void reply.setCookie(OIDC_FLOW_COOKIE, flowCookie, {
        ...cookieOptions(ctx, req, OIDC_PATH),
        maxAge: OIDC_FLOW_MINUTES * 60,
      });
      return reply.redirect(url, 302);
    },
  );
  app.get(
    '/session/oidc/:provider/callback',
    { config: publicRoute, schema: { hide: true, params: OidcProviderParams, querystring: OidcCallbackQuery } },
    async (req, reply) => {
      const { provider } = req.params;
      // The flow's checks are good once: whatever the outcome, the cookie goes.
      void reply.clearCookie(OIDC_FLOW_COOKIE, { path: OIDC_PATH });
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      const current = new URL(callbackUri(ctx, req, provider) + query);
      try {
        const done = await finishOidcSignIn(ctx, provider, current, req.cookies[OIDC_FLOW_COOKIE], req.ip);
        void reply.setCookie(SESSION_COOKIE, done.token, cookieOptions(ctx, req, '/'));
        void reply.setCookie(OIDC_LOGOUT_COOKIE, done.logoutCookie, cookieOptions(ctx, req, '/v2/session'));
        return reply.redirect(done.next, 302);
      } catch (err) {
        if (!(err instanceof AppError) || !wantsPage(req)) throw err;
        return reply.redirect(`/signin?error=${encodeURIComponent(err.message)}`, 302);
      }
    },
  );
  app.post(
    '/session/api-key',
    {
      schema: {
        tags,
        operationId: 'newApiKey',
        summary: 'Make a new API key for the caller; the old one stops working at once',
        description:
          'One active key per user (DECISIONS 2): the new key revokes the old. The key is answered this once; ' +
          'only its hash is stored. Sessions are not affected.',
        response: { 201: NewApiKeyResponse },
      },
    },
    async (req, reply) => {
      const p = principalOf(req);
      const apiKey = await issueApiKey(ctx.store.db, ctx.clock, p.userId, undefined, p);
      ctx.log.info({ userId: p.userId }, 'api key replaced');
      return created(reply, { apiKey, prefix: apiKey.slice(0, 8) });
    },
  );
  app.get(
    '/password-links/:token',
    {
      config: publicRoute,
      schema: {
        tags,
        operationId: 'getPasswordLink',
        summary: 'What a password or invite link is for (before the person chooses a password)',
        params: LinkTokenParams,
        security: [],
        response: { 200: PasswordLinkView, 404: ErrorResponse },
      },
    },
    async (req) => ok(await describeLink(ctx, req.params.token)),
  );
  app.post(
    '/password-links/:token',
    {
      config: publicRoute,
      schema: {
        tags,
        operationId: 'usePasswordLink',
        summary: 'Set the password through a one-time link (reset, first owner, invite accept) and sign in',
        params: LinkTokenParams,
        body: UsePasswordLinkRequest,
        security: [],
        response: { 200: SessionResponse, 404: ErrorResponse },
      },
    },
    async (req, reply) => {
      const { userId } = await usePasswordLink(ctx, req.params.token, req.body, req.ip);
      const { token } = await createSession(ctx, userId, req.ip);
      return startedSession(ctx, req, reply, token);
    },
  );
};
