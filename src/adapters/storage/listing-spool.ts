import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** In-memory buffer size before the listing moves to a file. */
const FLUSH_BYTES = 1024 * 1024;

/**
 * Collects a file listing as the body of a JSON array, so that memory stays bounded whatever
 * the bucket holds: a listing is answered only once every provider page has come back (a
 * failure on page 90 must still answer 4xx, not half a body), and 100,000 signed URLs are tens
 * of megabytes. Up to 1 MiB stays in memory; past that, the items go to a private temporary
 * file that is streamed out and removed.
 */
export class ListingSpool {
  private buffer: string[] = [];
  private bufferBytes = 0;
  private file: { path: string; handle: fs.promises.FileHandle } | undefined;
  private done = false;
  count = 0;

  constructor(private readonly dir: string = os.tmpdir()) {}

  /** Adds one item (a key or a URL). */
  async add(item: string): Promise<void> {
    const json = (this.count === 0 ? '' : ',') + JSON.stringify(item);
    this.count++;
    this.buffer.push(json);
    this.bufferBytes += json.length;
    if (this.bufferBytes >= FLUSH_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.file) {
      const file = path.join(this.dir, `annotary-listing-${randomBytes(8).toString('hex')}.part`);
      this.file = { path: file, handle: await fs.promises.open(file, 'wx', 0o600) };
    }
    await this.file.handle.write(this.buffer.join(''));
    this.buffer = [];
    this.bufferBytes = 0;
  }

  /** The items joined by commas (the inside of a JSON array), once; then the spool is gone. */
  async *chunks(): AsyncGenerator<string | Buffer, void, undefined> {
    if (this.done) throw new Error('the listing was already read');
    this.done = true;
    try {
      if (this.file) {
        await this.file.handle.close();
        for await (const chunk of fs.createReadStream(this.file.path, { highWaterMark: 256 * 1024 })) {
          yield chunk as Buffer;
        }
      }
      if (this.buffer.length) yield this.buffer.join('');
    } finally {
      await this.discard();
    }
  }

  /** Drops everything (after a failure, or once read). */
  async discard(): Promise<void> {
    this.done = true;
    this.buffer = [];
    const file = this.file;
    this.file = undefined;
    if (file) {
      await file.handle.close().catch(() => undefined);
      await fs.promises.rm(file.path, { force: true });
    }
  }
}
