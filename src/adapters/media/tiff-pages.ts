/*
 * A TIFF file's page count, from its chain of image file directories (IFDs): the header names
 * the first directory, each directory the next (0 ends the chain). Only the directories are
 * read, never a page's pixels; a directory beyond the bytes already read is asked for by offset
 * (a Range request). Classic TIFF (32-bit offsets) and BigTIFF (64-bit) are read.
 */

/** Reads `size` bytes at `offset` (fewer where the file ends). */
export type ReadAt = (offset: number, size: number) => Promise<Buffer>;

/** More pages than any document or stack this editor opens: a chain this long is refused. */
export const MAX_TIFF_PAGES = 100_000;

export function looksLikeTiff(head: Buffer): boolean {
  if (head.length < 4) return false;
  const order = head.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return false;
  const magic = order === 'II' ? head.readUInt16LE(2) : head.readUInt16BE(2);
  return magic === 42 || magic === 43;
}

/** The pages of a TIFF whose first bytes are `head`, or why they cannot be counted. */
export async function tiffPageTotal(head: Buffer, readAt: ReadAt): Promise<{ pages: number } | { problem: string }> {
  if (!looksLikeTiff(head) || head.length < 8) return { problem: 'the file is not a TIFF image' };
  const le = head.toString('latin1', 0, 2) === 'II';
  const big = (le ? head.readUInt16LE(2) : head.readUInt16BE(2)) === 43;
  const u16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (le ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const u64 = (b: Buffer, at: number) => Number(le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at));
  // Sizes of the directory's count, one entry, and the next directory's offset.
  const [countBytes, entryBytes, nextBytes] = big ? [8, 20, 8] : [2, 12, 4];
  if (big && head.length < 16) return { problem: 'the TIFF header is cut short' };
  const bytesAt = async (offset: number, size: number) =>
    offset + size <= head.length ? head.subarray(offset, offset + size) : readAt(offset, size);

  let next = big ? u64(head, 8) : u32(head, 4);
  const seen = new Set<number>();
  let pages = 0;
  while (next !== 0) {
    if (seen.has(next)) return { problem: 'the TIFF directories point back at each other (a loop)' };
    if (pages >= MAX_TIFF_PAGES) return { problem: `the TIFF has more than ${MAX_TIFF_PAGES} pages` };
    seen.add(next);
    const countPart = await bytesAt(next, countBytes);
    if (countPart.length < countBytes) return { problem: `the file is cut short before its page ${pages + 1}` };
    const count = big ? u64(countPart, 0) : u16(countPart, 0);
    const at = next + countBytes + count * entryBytes;
    const nextPart = await bytesAt(at, nextBytes);
    if (nextPart.length < nextBytes) return { problem: `the file is cut short in its page ${pages + 1}` };
    pages++;
    next = big ? u64(nextPart, 0) : u32(nextPart, 0);
  }
  return pages ? { pages } : { problem: 'the TIFF holds no page' };
}
