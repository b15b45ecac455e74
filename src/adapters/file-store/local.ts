import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type FileInfo, FileNotFoundError, type FileStore, FileTooLargeError, isSafeKey } from './file-store.js';

/** Partial uploads live here until complete; keys cannot name it (no segment starts with a dot). */
const TEMP_DIR = '.tmp';

/**
 * Files in a local folder (`${dataDir}/files` by default). Writes go to a temporary file in the
 * same folder tree, are synced to disk, then renamed into place: rename is atomic on one file
 * system, so readers see the old file or the new one, never half of one.
 */
export class LocalFileStore implements FileStore {
  readonly root: string;
  private readonly temp: string;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.temp = path.join(this.root, TEMP_DIR);
  }

  /** Where a key's bytes sit; throws on a key that is not safe (never resolves outside root). */
  pathOf(key: string): string {
    if (!isSafeKey(key)) throw new Error('unsafe file key');
    const full = path.join(this.root, ...key.split('/'));
    // isSafeKey already excludes traversal; this guards the guard.
    if (!full.startsWith(this.root + path.sep)) throw new Error('unsafe file key');
    return full;
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<{ size: number }> {
    const target = this.pathOf(key);
    await mkdir(this.temp, { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    const partial = path.join(this.temp, `${randomBytes(12).toString('hex')}.part`);
    const max = opts.maxBytes;
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (max !== undefined && size > max) done(new FileTooLargeError(max));
        else done(null, chunk);
      },
    });
    // Opened before any byte flows, so the partial file exists from here on and the cleanup
    // below can never run ahead of a late open.
    const handle = await open(partial, 'wx');
    try {
      // The stream owns the handle: it syncs (flush) and closes it when done or destroyed.
      await pipeline(body, counter, handle.createWriteStream({ flush: true }));
      await rename(partial, target);
    } catch (err) {
      // pipeline has destroyed every stream, the source included; only the partial file is left.
      await handle.close();
      await rm(partial, { force: true });
      throw err;
    }
    return { size };
  }

  async openRead(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const file = this.pathOf(key);
    if (!(await this.stat(key))) throw new FileNotFoundError();
    return createReadStream(file, range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<FileInfo | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size, modifiedAt: s.mtime } : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
        return undefined;
      }
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
