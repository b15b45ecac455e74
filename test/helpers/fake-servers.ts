import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/*
 * Small HTTP servers of ours for what has no offline emulator (STACK.md): the GCS JSON API
 * (objects.list with pageToken paging, objects.get alt=media, V4 signed URL reads with the
 * signature checked against the service account's public key), the AWS STS AssumeRole query
 * API, and a fault-injecting proxy that answers S3 SlowDown in front of a real S3 server.
 */

export interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(server: http.Server | https.Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${server instanceof https.Server ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A service-account key made for the test, with its public half for checking signatures. */
export function makeServiceAccount(email = 'annotary-test@test-project.iam.gserviceaccount.com') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    credentials: {
      type: 'service_account',
      project_id: 'test-project',
      private_key_id: 'k1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: '1',
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Checks a GOOG4-RSA-SHA256 signed URL the way GCS does; returns why it fails, or undefined. */
function checkV4(req: http.IncomingMessage, url: URL, keys: Map<string, string>): string | undefined {
  const q = url.searchParams;
  if (q.get('X-Goog-Algorithm') !== 'GOOG4-RSA-SHA256') return 'algorithm';
  const credential = q.get('X-Goog-Credential') ?? '';
  const slash = credential.indexOf('/');
  const email = credential.slice(0, slash);
  const scope = credential.slice(slash + 1);
  const publicKey = keys.get(email);
  if (!publicKey) return 'unknown service account';
  const date = q.get('X-Goog-Date') ?? '';
  const expires = Number(q.get('X-Goog-Expires'));
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  if (!m) return 'date';
  const start = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (Date.now() > start + expires * 1000) return 'expired';
  const query = [...q.entries()]
    .filter(([k]) => k !== 'X-Goog-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const canonical = [req.method, url.pathname, query, `host:${host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const toSign = ['GOOG4-RSA-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const signature = Buffer.from(q.get('X-Goog-Signature') ?? '', 'hex');
  return verify('RSA-SHA256', Buffer.from(toSign), createPublicKey(publicKey), signature) ? undefined : 'signature';
}

export interface FakeGcs extends Listening {
  buckets: Map<string, Map<string, Buffer>>;
  /** Service accounts whose signatures are accepted: e-mail -> public key PEM. */
  keys: Map<string, string>;
  /** Buckets that answer 403 (the credentials lack access). */
  forbidden: Set<string>;
  /** The next n list calls answer 429. */
  rateLimitNext(n: number): void;
  listCalls: number;
}

export async function startFakeGcs(): Promise<FakeGcs> {
  const buckets = new Map<string, Map<string, Buffer>>();
  const keys = new Map<string, string>();
  const forbidden = new Set<string>();
  let limited = 0;
  const state = { listCalls: 0 };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const apiError = (res: http.ServerResponse, status: number, reason: string, message: string) =>
    json(res, status, { error: { code: status, message, errors: [{ reason, message, domain: 'global' }] } });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const list = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const get = /^\/(?:download\/)?storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
    if (list?.[1]) {
      state.listCalls++;
      const bucket = decodeURIComponent(list[1]);
      if (limited > 0) {
        limited--;
        return apiError(res, 429, 'rateLimitExceeded', 'The rate of change requests is too high.');
      }
      if (forbidden.has(bucket))
        return apiError(res, 403, 'forbidden', 'caller does not have storage.objects.list access');
      const objects = buckets.get(bucket);
      if (!objects) return apiError(res, 404, 'notFound', 'The specified bucket does not exist.');
      const prefix = url.searchParams.get('prefix') ?? '';
      const delimiter = url.searchParams.get('delimiter') ?? '';
      const size = Number(url.searchParams.get('maxResults') ?? 1000);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      // With a delimiter, as the JSON API does: names with the delimiter past the prefix roll up
      // into `prefixes` (up to and including it); maxResults counts items and prefixes together.
      const entries = new Map<string, 'item' | 'prefix'>();
      for (const name of [...objects.keys()].filter((n) => n.startsWith(prefix)).sort()) {
        const cut = delimiter ? name.indexOf(delimiter, prefix.length) : -1;
        if (cut >= 0) entries.set(name.slice(0, cut + delimiter.length), 'prefix');
        else entries.set(name, 'item');
      }
      const page = [...entries].slice(start, start + size);
      const items = page.filter(([, k]) => k === 'item').map(([name]) => ({ kind: 'storage#object', name, bucket }));
      const prefixes = page.filter(([, k]) => k === 'prefix').map(([name]) => name);
      const next = start + size < entries.size ? String(start + size) : undefined;
      return json(res, 200, {
        kind: 'storage#objects',
        items,
        ...(prefixes.length ? { prefixes } : {}),
        ...(next ? { nextPageToken: next } : {}),
      });
    }
    if (get?.[1] && get[2] && url.searchParams.get('alt') === 'media') {
      const body = buckets.get(decodeURIComponent(get[1]))?.get(decodeURIComponent(get[2]));
      if (!body) return apiError(res, 404, 'notFound', 'No such object');
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    }
    // A V4 signed URL: /<bucket>/<object>?X-Goog-Signature=...
    const signed = /^\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (signed?.[1] && signed[2] && url.searchParams.has('X-Goog-Signature')) {
      const why = checkV4(req, url, keys);
      if (why) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        return res.end(
          `<?xml version='1.0' encoding='UTF-8'?><Error><Code>SignatureDoesNotMatch</Code><Details>${why}</Details></Error>`,
        );
      }
      const body = buckets.get(decodeURIComponent(signed[1]))?.get(decodeURIComponent(signed[2]));
      if (!body) return res.writeHead(404).end();
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    }
    return apiError(res, 404, 'notFound', `no route ${req.method} ${url.pathname}`);
  });
  const listening = await listen(server);
  return {
    ...listening,
    buckets,
    keys,
    forbidden,
    rateLimitNext(n) {
      limited = n;
    },
    get listCalls() {
      return state.listCalls;
    },
    set listCalls(v: number) {
      state.listCalls = v;
    },
  };
}

export interface FakeSts extends Listening {
  /** AssumeRole calls received, with their parameters. */
  calls: { roleArn: string; externalId: string }[];
  /** Roles that are refused with AccessDenied. */
  refuse: Set<string>;
  /** Credentials handed out for every session. */
  credentials: { accessKeyId: string; secretAccessKey: string };
}

export async function startFakeSts(credentials: { accessKeyId: string; secretAccessKey: string }): Promise<FakeSts> {
  const calls: FakeSts['calls'] = [];
  const refuse = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      const roleArn = form.get('RoleArn') ?? '';
      calls.push({ roleArn, externalId: form.get('ExternalId') ?? '' });
      res.setHeader('content-type', 'text/xml');
      if (form.get('Action') !== 'AssumeRole' || refuse.has(roleArn) || !req.headers.authorization) {
        res.statusCode = 403;
        return res.end(
          '<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>' +
            '<Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole</Message></Error>' +
            '<RequestId>r</RequestId></ErrorResponse>',
        );
      }
      const expiration = new Date(Date.now() + 3600_000).toISOString();
      res.end(
        '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>' +
          `<AccessKeyId>${credentials.accessKeyId}</AccessKeyId><SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>` +
          `<SessionToken>session-token</SessionToken><Expiration>${expiration}</Expiration></Credentials>` +
          `<AssumedRoleUser><Arn>${roleArn}/annotary</Arn><AssumedRoleId>AROA:annotary</AssumedRoleId></AssumedRoleUser>` +
          '</AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>',
      );
    });
  });
  return { ...(await listen(server)), calls, refuse, credentials };
}

export interface FaultProxy extends Listening {
  /**
   * The next n requests (after letting `afterPassing` through) answer `503 SlowDown`, S3's XML
   * error, without reaching the server.
   */
  slowDownNext(n: number, afterPassing?: number): void;
  /** Requests received, failed or passed. */
  requests: number;
}

/** An HTTP proxy in front of an S3 server that injects SlowDown answers. */
export async function startSlowDownProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let failing = 0;
  let passing = 0;
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    if (passing > 0) passing--;
    else if (failing > 0) {
      failing--;
      res.writeHead(503, { 'content-type': 'application/xml' });
      return res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>' +
          '<Message>Please reduce your request rate.</Message><RequestId>fault</RequestId></Error>',
      );
    }
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  const listening = await listen(server);
  return {
    ...listening,
    slowDownNext(n, afterPassing = 0) {
      failing = n;
      passing = afterPassing;
    },
    get requests() {
      return state.requests;
    },
    set requests(v: number) {
      state.requests = v;
    },
  };
}

export interface FakeEntra extends Listening {
  /** Registered apps: client id -> secret. */
  apps: Map<string, string>;
  /** Tokens handed out. */
  tokens: number;
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * Microsoft Entra ID's OpenID metadata and client-credentials token endpoint, over https (MSAL
 * refuses anything else). Tokens are storage-audience JWTs that Azurite's "basic" OAuth accepts;
 * an unknown client or a wrong secret gets `invalid_client` like the real service.
 */
export async function startFakeEntra(tls: { cert: string; key: string }): Promise<FakeEntra> {
  const apps = new Map<string, string>();
  const state = { tokens: 0 };
  let base = '';
  const server = https.createServer(tls, (req, res) => {
    const url = new URL(req.url ?? '/', base);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      const meta = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname);
      if (meta?.[1]) {
        const tenant = meta[1];
        return res.end(
          JSON.stringify({
            issuer: `${base}/${tenant}/v2.0`,
            authorization_endpoint: `${base}/${tenant}/oauth2/v2.0/authorize`,
            token_endpoint: `${base}/${tenant}/oauth2/v2.0/token`,
            jwks_uri: `${base}/${tenant}/discovery/v2.0/keys`,
            end_session_endpoint: `${base}/${tenant}/oauth2/v2.0/logout`,
          }),
        );
      }
      const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
      if (token?.[1] && req.method === 'POST') {
        const form = new URLSearchParams(body);
        const clientId = form.get('client_id') ?? '';
        if (!apps.has(clientId) || apps.get(clientId) !== form.get('client_secret')) {
          res.statusCode = 401;
          return res.end(
            JSON.stringify({
              error: 'invalid_client',
              error_description: 'AADSTS7000215: Invalid client secret provided.',
            }),
          );
        }
        state.tokens++;
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          aud: 'https://storage.azure.com',
          iss: `https://sts.windows.net/${token[1]}/`,
          iat: now,
          nbf: now - 60,
          exp: now + 3600,
          oid: `oid-of-${clientId}`,
          tid: token[1],
          appid: clientId,
        };
        const jwt = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
        return res.end(
          JSON.stringify({ token_type: 'Bearer', expires_in: 3600, ext_expires_in: 3600, access_token: jwt }),
        );
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ error: 'not_found' }));
    });
  });
  const listening = await listen(server);
  base = listening.url;
  return {
    ...listening,
    apps,
    get tokens() {
      return state.tokens;
    },
  };
}
