/**
 * Sends one webhook request and says how it went. The Webhook stage signs and serialises the
 * body itself; a sender only carries bytes, so a test or another transport is one more file.
 */

export interface WebhookRequest {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  /** The exact bytes to send: the signature was computed over them. */
  body: Buffer;
  /** Bound of the whole attempt (connect, answer, body), in ms. */
  timeoutMs: number;
  /** Aborts the attempt, e.g. when the job's lease was lost. */
  signal?: AbortSignal | undefined;
  /** Keep the answer's body, up to this many bytes (a longer one fails the request). */
  readBodyUpTo?: number | undefined;
}

export type WebhookResult =
  /** The receiver answered; any status, redirects included (they are not followed). */
  | { kind: 'answered'; status: number; body?: Buffer; contentType?: string | undefined }
  /**
   * No answer: timeout, network error, or a destination refused by the address policy. `error`
   * is short, one line, and never carries the URL (its path or query may hold a token).
   */
  | { kind: 'failed'; error: string };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
  /** Closes kept-alive connections. */
  close(): Promise<void>;
}
