import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** In-memory buffer size before the spool moves to a file. */
const FLUSH_BYTES = 1024 * 1024;
/** The in-memory buffer's first size: it doubles up to FLUSH_BYTES as it fills. */
const FIRST_BYTES = 16 * 1024;

/**
 * Text or bytes written once and read back once, in bounded memory: up to 1 MiB stays in
 * memory; past that, everything goes to a private temporary file that is read back and removed.
 *
 * What is written is copied at once into one buffer of the spool's own, reused after each
 * write to the file: the strings and Buffers handed in are not kept. Kept until a megabyte had
 * gathered, they outlived the garbage collector's young generation, and a 100,000-asset import
 * left its 13.8 MiB body and 10.7 MiB answer in the old space until the next full collection.
 */
export class Spool {
  private buffer: Buffer | undefined;
  private used = 0;
  private file: { path: string; handle: fs.promises.FileHandle } | undefined;
  private done = false;
  private discarded = false;
  /** Writes run one after another: the buffer is reused once the file has what it held. */
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string = os.tmpdir(),
    private readonly prefix = 'annotary-spool',
  ) {}

  write(chunk: string | Buffer): Promise<void> {
    const next = this.last.then(() => this.put(chunk));
    this.last = next.catch(() => undefined);
    return next;
  }

  private async put(chunk: string | Buffer): Promise<void> {
    if (this.discarded) return;
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk, 'utf8') : chunk.length;
    if (this.used + bytes > FLUSH_BYTES) await this.flush();
    if (bytes > FLUSH_BYTES) {
      await this.append([typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk]);
      return;
    }
    this.reserve(this.used + bytes);
    const buffer = this.buffer as Buffer;
    if (typeof chunk === 'string') buffer.write(chunk, this.used, 'utf8');
    else chunk.copy(buffer, this.used);
    this.used += bytes;
    if (this.used >= FLUSH_BYTES) await this.flush();
  }

  /** A buffer of at least `size` bytes (at most FLUSH_BYTES), keeping what it holds. */
  private reserve(size: number) {
    const have = this.buffer?.length ?? 0;
    if (size <= have) return;
    let grown = Math.max(FIRST_BYTES, have);
    while (grown < size) grown *= 2;
    const buffer = Buffer.allocUnsafeSlow(Math.min(FLUSH_BYTES, grown));
    this.buffer?.copy(buffer, 0, 0, this.used);
    this.buffer = buffer;
  }

  private async flush(): Promise<void> {
    if (!this.used || !this.buffer) return;
    await this.append([this.buffer.subarray(0, this.used)]);
    this.used = 0;
  }

  private async append(buffers: Buffer[]): Promise<void> {
    if (!this.file) {
      const file = path.join(this.dir, `${this.prefix}-${randomBytes(8).toString('hex')}.part`);
      this.file = { path: file, handle: await fs.promises.open(file, 'wx', 0o600) };
    }
    await this.file.handle.writev(buffers);
  }

  /** What was written, in order, once; then the spool is gone. */
  async *chunks(): AsyncGenerator<string | Buffer, void, undefined> {
    if (this.done) throw new Error('the spool was already read');
    this.done = true;
    await this.last;
    try {
      if (this.file) {
        await this.file.handle.close();
        for await (const chunk of fs.createReadStream(this.file.path, { highWaterMark: 256 * 1024 })) {
          yield chunk as Buffer;
        }
      }
      if (this.used && this.buffer) yield this.buffer.subarray(0, this.used);
    } finally {
      await this.discard();
    }
  }

  /** Drops everything (after a failure, or once read). */
  async discard(): Promise<void> {
    this.done = true;
    this.discarded = true;
    await this.last;
    this.buffer = undefined;
    this.used = 0;
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
