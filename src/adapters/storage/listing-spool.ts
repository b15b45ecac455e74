import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** In-memory buffer size before the spool moves to a file. */
const FLUSH_BYTES = 1024 * 1024;

const toBuffer = (b: string | Buffer) => (typeof b === 'string' ? Buffer.from(b, 'utf8') : b);

/**
 * Text or bytes written once and read back once, in bounded memory: up to 1 MiB stays in
 * memory; past that, everything goes to a private temporary file that is read back and removed.
 */
export class Spool {
  private buffer: (string | Buffer)[] = [];
  private bufferBytes = 0;
  private file: { path: string; handle: fs.promises.FileHandle } | undefined;
  private done = false;

  constructor(
    private readonly dir: string = os.tmpdir(),
    private readonly prefix = 'annotary-spool',
  ) {}

  async write(chunk: string | Buffer): Promise<void> {
    this.buffer.push(chunk);
    this.bufferBytes += chunk.length;
    if (this.bufferBytes >= FLUSH_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.file) {
      const file = path.join(this.dir, `${this.prefix}-${randomBytes(8).toString('hex')}.part`);
      this.file = { path: file, handle: await fs.promises.open(file, 'wx', 0o600) };
    }
    const buffer = this.buffer;
    this.buffer = [];
    this.bufferBytes = 0;
    await this.file.handle.writev(buffer.map(toBuffer));
  }

  /** What was written, in order, once; then the spool is gone. */
  async *chunks(): AsyncGenerator<string | Buffer, void, undefined> {
    if (this.done) throw new Error('the spool was already read');
    this.done = true;
    try {
      if (this.file) {
        await this.file.handle.close();
        for await (const chunk of fs.createReadStream(this.file.path, { highWaterMark: 256 * 1024 })) {
          yield chunk as Buffer;
        }
      }
      const rest = this.buffer;
      if (rest.length)
        yield rest.every((b) => typeof b === 'string') ? rest.join('') : Buffer.concat(rest.map(toBuffer));
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

/**
 * Collects a file listing as the body of a JSON array, so that memory stays bounded whatever
 * the bucket holds: a listing is answered only once every provider page has come back (a
 * failure on page 90 must still answer 4xx, not half a body), and 100,000 signed URLs are tens
 * of megabytes. Up to 1 MiB stays in memory; past that, the items go to a private temporary
 * file that is streamed out and removed.
 */
export class ListingSpool {
  private readonly spool: Spool;
  count = 0;

  constructor(dir: string = os.tmpdir()) {
    this.spool = new Spool(dir, 'annotary-listing');
  }

  /** Adds one item (a key or a URL). */
  add(item: string): Promise<void> {
    return this.addJson(JSON.stringify(item));
  }

  /** Adds one item already written as JSON. */
  addJson(value: string): Promise<void> {
    return this.spool.write((this.count++ === 0 ? '' : ',') + value);
  }

  /** The items joined by commas (the inside of a JSON array), once; then the spool is gone. */
  chunks(): AsyncGenerator<string | Buffer, void, undefined> {
    return this.spool.chunks();
  }

  /** Drops everything (after a failure, or once read). */
  discard(): Promise<void> {
    return this.spool.discard();
  }
}
