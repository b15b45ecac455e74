import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';

/*
 * Writes a zip of one entry from a stream of byte chunks. The chunks are pulled only as fast as
 * deflate and the disk take them (stream backpressure end to end), so memory holds a few
 * chunks whatever the size of the export. The zip appears under its final name only when it is
 * complete: it is written to `<file>.part` and renamed; on any failure the part is removed.
 */

/**
 * Deflate level 1: about 3x the speed of zlib's default (6) on export JSON, for zips some 30%
 * larger. Compression is the one per-byte cost of an export, so speed wins.
 */
const COMPRESSION_LEVEL = 1;

export interface ZipResult {
  /** Bytes of the zip file. */
  bytes: number;
}

export async function writeSingleEntryZip(
  file: string,
  entryName: string,
  chunks: AsyncIterable<Buffer>,
  mtime: Date,
): Promise<ZipResult> {
  const part = `${file}.part`;
  // Byte mode: the stream buffers ~16 KiB ahead, so at most one chunk waits for deflate.
  const source = Readable.from(chunks, { objectMode: false });
  const zip = new ZipFile();
  // yazl does not forward errors of a stream it was given: watch the source ourselves.
  const failed = new Promise<never>((_, reject) => {
    source.once('error', reject);
    zip.once('error', reject);
  });
  zip.addReadStream(source, entryName, { compressionLevel: COMPRESSION_LEVEL, mtime });
  zip.end();
  const out = fs.createWriteStream(part, { flags: 'wx' });
  try {
    await Promise.race([pipeline(zip.outputStream, out), failed]);
    await fs.promises.rename(part, file);
    return { bytes: out.bytesWritten };
  } catch (err) {
    source.destroy();
    (zip.outputStream as Readable).destroy();
    out.destroy();
    await fs.promises.rm(part, { force: true });
    throw err;
  }
}
