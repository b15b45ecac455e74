import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ChangeBus } from './change-bus.js';

/**
 * A change bus on Redis pub/sub: one connection publishes, one listens. Its own messages come
 * back to it and are ignored. While the listening connection is down nothing can be trusted:
 * `listening()` is false, and reconnecting (or losing the connection) calls `reset`.
 */
export class RedisChangeBus implements ChangeBus {
  private readonly self = randomUUID();
  private readonly pub: Redis;
  private readonly sub: Redis;
  private subscribed = false;

  constructor(
    url: string,
    private readonly channel: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    // A publish waits for the connection (a command-line process has just opened it), up to one retry.
    this.pub = new Redis(url, { maxRetriesPerRequest: 1 });
    this.sub = new Redis(url, { maxRetriesPerRequest: 1 });
    this.pub.on('error', () => undefined);
    this.sub.on('error', () => undefined);
  }

  subscribe(handlers: { changed(): void; reset(): void }): void {
    // Listening only once Redis has confirmed the subscription; again after each reconnection.
    const confirm = () => {
      this.sub.subscribe(this.channel).then(() => {
        this.subscribed = true;
        handlers.reset();
      }, this.onError);
    };
    this.sub.on('ready', confirm);
    this.sub.on('close', () => {
      this.subscribed = false;
      handlers.reset();
    });
    this.sub.on('message', (_channel: string, from: string) => {
      if (from !== this.self) handlers.changed();
    });
    if (this.sub.status === 'ready') confirm();
  }

  listening(): boolean {
    return this.subscribed && this.sub.status === 'ready';
  }

  async publish(): Promise<void> {
    await this.pub.publish(this.channel, this.self);
  }

  async close(): Promise<void> {
    await Promise.all(
      [this.pub, this.sub].map((r) =>
        r.quit().then(
          () => undefined,
          () => r.disconnect(),
        ),
      ),
    );
  }
}
