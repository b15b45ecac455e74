import {
  expiryAfter,
  linkExpired,
  linkSignatureMatches,
  parseLinkExpiry,
  signLink,
} from '../../adapters/crypto/signed-link.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';

/*
 * Key-less links of GET /v2/mask, as exports hand them out (`includeMask`): the contract's
 * address, `/v2/mask?annotation=<objectId>&task=<taskId>`, with `expires` (Unix seconds) and
 * `signature` (base64url HMAC-SHA256 of task, object and expiry, under a key derived from the
 * server key for this purpose only). The request log records the route pattern, never the query.
 */

const PURPOSE = 'annotary:mask-links';

function signedMessage(taskId: string, objectId: string, expires: number): string {
  return `${taskId}\n${objectId}\n${expires}`;
}

/** The signed mask link of one object, valid `ttlSeconds` from now; `base` is the server's address. */
export function signMaskLink(ctx: AppContext, base: string, taskId: string, objectId: string, ttlSeconds: number) {
  const expires = expiryAfter(ctx.clock.now(), ttlSeconds);
  const signature = signLink(ctx.secretKey, PURPOSE, signedMessage(taskId, objectId, expires));
  const query = new URLSearchParams({ annotation: objectId, task: taskId, expires: String(expires), signature });
  return `${base}/v2/mask?${query.toString()}`;
}

/** Checks a signed mask link in constant time: 403 when tampered with or expired. */
export function checkMaskLink(
  ctx: AppContext,
  q: { task: string; annotation: string; expires: string; signature: string },
): void {
  const expires = parseLinkExpiry(q.expires);
  const valid =
    expires !== undefined &&
    linkSignatureMatches(ctx.secretKey, PURPOSE, signedMessage(q.task, q.annotation, expires), q.signature);
  if (!valid) throw new AppError('FORBIDDEN', 'the signature of this mask link is not valid');
  if (linkExpired(expires, ctx.clock.now())) {
    throw new AppError('FORBIDDEN', 'this mask link has expired; export again for a new one');
  }
}
