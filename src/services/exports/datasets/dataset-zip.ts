import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/*
 * A zip of many entries (a dataset: label files, XML, PNG masks, a README) written as they are
 * produced. The next entry is asked for only once the previous one has been read whole by the
 * zip (and so, through the stream's backpressure, once deflate and the disk took it): memory
 * holds one entry's pending bytes, whatever the number of entries. Written to `<file>.part` and
 * renamed when complete; removed on failure.
 */

export interface ZipEntry {
  name: string;
  data: Buffer | string | AsyncIterable<Buffer | string>;
}

const COMPRESSION_LEVEL = 1;

export async function writeZipEntries(file: string, entries: AsyncIterable<ZipEntry>, mtime: Date): Promise<number> {
  const part = `${file}.part`;
  const zip = new ZipFile();
  const out = fs.createWriteStream(part, { flags: 'wx' });
  let failure: ((err: unknown) => void) | undefined;
  const failed = new Promise<never>((_, reject) => (failure = reject));
  zip.once('error', (err: unknown) => failure?.(err));
  const written = pipeline(zip.outputStream, out);
  // Awaited below; a failure of the feed first must not leave this rejection unhandled.
  written.catch(() => undefined);
  const feed = async () => {
    for await (const entry of entries) {
      const source =
        typeof entry.data === 'string' || Buffer.isBuffer(entry.data)
          ? Readable.from([Buffer.from(entry.data)])
          : Readable.from(entry.data, { objectMode: false });
      const consumed = new Promise<void>((resolve, reject) => {
        source.once('end', resolve).once('error', reject);
      });
      zip.addReadStreamLazy(entry.name, { compressionLevel: COMPRESSION_LEVEL, mtime }, (cb) => cb(null, source));
      await Promise.race([consumed, failed]);
    }
    zip.end();
    await written;
  };
  try {
    await Promise.race([feed(), failed, written.then(() => new Promise<never>(() => undefined))]);
    await fs.promises.rename(part, file);
    return out.bytesWritten;
  } catch (err) {
    (zip.outputStream as Readable).destroy();
    out.destroy();
    await fs.promises.rm(part, { force: true });
    throw err;
  }
}
