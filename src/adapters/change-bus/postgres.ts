import type pg from 'pg';
import type { ChangeBus } from './change-bus.js';

/** Where a listening connection goes: the store's URL and its session options (search_path). */
export interface PgListenTarget {
  connectionString: string;
  options?: string | undefined;
}

const RETRY_MS = 1_000;

/**
 * A change bus on PostgreSQL's LISTEN/NOTIFY, for a store without Redis: the database's own
 * triggers (migration 014) send the notification when a change to keys, users or organizations
 * commits, whichever process or hand made it, so `publish` has nothing to send. One connection
 * of its own listens; while it is down (not yet connected, lost, reconnecting every second)
 * `listening()` is false, and losing or regaining it calls `reset`.
 */
export class PgNotifyChangeBus implements ChangeBus {
  private client: pg.Client | undefined;
  private up = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: PgListenTarget,
    private readonly channel: string,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error('invalid channel name');
  }

  subscribe(handlers: { changed(): void; reset(): void }): void {
    void this.connect(handlers);
  }

  private async connect(handlers: { changed(): void; reset(): void }): Promise<void> {
    if (this.closed) return;
    const { default: driver } = await import('pg');
    // Closed while pg loaded (a short CLI command): never open a connection nobody will end.
    if (this.closed) return;
    const client = new driver.Client(this.target);
    this.client = client;
    const lost = (err?: unknown) => {
      if (err) this.onError(err);
      if (this.client !== client) return;
      this.client = undefined;
      this.up = false;
      handlers.reset();
      client.end().catch(() => undefined);
      if (!this.closed) this.retry = setTimeout(() => void this.connect(handlers), RETRY_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel === this.channel) handlers.changed();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.client !== client || this.closed) {
        // Closed (or replaced) while connecting: close() found no client to end, so end it here,
        // or its socket would keep the process alive.
        await client.end().catch(() => undefined);
        return;
      }
      this.up = true;
      handlers.reset();
    } catch (err) {
      lost(err);
    }
  }

  listening(): boolean {
    return this.up;
  }

  async publish(): Promise<void> {
    // The triggers notify on commit.
  }

  async close(): Promise<void> {
    this.closed = true;
    this.up = false;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
