import type { WebhookRequest, WebhookSender } from '../../adapters/webhook/webhook-sender.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../errors.js';

/**
 * A call the server makes for a person waiting on it (the editor's Assist, a pct answer's external
 * validation): the body of a 2xx answer, or a 502 whose message says what went wrong in words,
 * naming the party called (`the assist plugin`) and never its address. Failures are logged with
 * `log`'s ids.
 */
export async function answerOf(
  ctx: AppContext,
  sender: WebhookSender,
  request: WebhookRequest,
  party: string,
  log: Record<string, string>,
): Promise<Buffer> {
  const result = await sender.send(request);
  if (result.kind === 'failed') {
    ctx.log.warn({ ...log, error: result.error }, `${party}: call failed`);
    if (result.error.startsWith('timeout')) {
      const seconds = Math.round(request.timeoutMs / 100) / 10;
      throw new AppError('UPSTREAM', `${party} did not answer within ${seconds} s`);
    }
    throw new AppError('UPSTREAM', `${party} could not be reached: ${result.error}`);
  }
  if (result.status < 200 || result.status >= 300) {
    ctx.log.warn({ ...log, status: result.status }, `${party}: call refused`);
    throw new AppError('UPSTREAM', `${party} answered HTTP ${result.status}`);
  }
  return result.body ?? Buffer.alloc(0);
}
