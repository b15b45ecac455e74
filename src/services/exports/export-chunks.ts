import type { JsonSink } from './export-item-json.js';

/*
 * The bytes of an export's one zip entry: items framed as a JSON array or as NDJSON, encoded
 * straight into fixed-size Buffers as they are written. Text pieces never pile up as strings:
 * a chunk built by concatenation is a rope that V8 flattens into a second copy when it is
 * encoded, and chunks or joined items above ~128 KiB land in the large-object space, which only
 * a full collection frees. Buffers keep the bytes outside V8's heap, and a page's rows are
 * garbage as soon as the page is written.
 */

/**
 * One page of items, written one at a time (the rows behind them live while it is written). An
 * item too large to hold (a video's answer expanded to every frame) is written in parts: `write`
 * then answers an iterator that writes one part per step, and its chunks are handed on between
 * parts, so memory holds a part, not the item.
 */
export interface ItemPage {
  size: number;
  write(out: JsonSink, index: number): void | Iterator<void>;
}

/** Reads the next page of an export; undefined after the last. */
export type NextPage = () => Promise<ItemPage | undefined>;

/** Bytes per chunk handed to the zip: a few of them are in flight between here and the disk. */
const CHUNK_BYTES = 64 * 1024;

/** A JsonSink that UTF-8 encodes into Buffers of CHUNK_BYTES (or one piece's size, if larger). */
export class ChunkWriter implements JsonSink {
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private full: Buffer[] = [];

  write(text: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8: most pieces surely fit and are not measured.
    if (text.length * 3 > this.buf.length - this.used) {
      const bytes = Buffer.byteLength(text);
      if (bytes > this.buf.length - this.used) {
        this.flush(Math.max(bytes, CHUNK_BYTES));
      }
    }
    this.used += this.buf.write(text, this.used);
  }

  /** The complete chunks, handed over. */
  take(): Buffer[] {
    const full = this.full;
    this.full = [];
    return full;
  }

  /** Every chunk left, the last one partly filled. */
  end(): Buffer[] {
    this.flush(0);
    return this.take();
  }

  private flush(next: number): void {
    if (this.used) this.full.push(this.buf.subarray(0, this.used));
    this.buf = Buffer.allocUnsafe(next);
    this.used = 0;
  }
}

/**
 * `[` items `]` with one item per line, or NDJSON: one item per line, each line ended. Each page
 * is encoded whole, then its chunks are handed on one at a time, as fast as the zip stream takes
 * them (its backpressure reaches the database reads: the next page is read only then).
 */
export async function* framed(next: NextPage, format: 'json' | 'ndjson'): AsyncGenerator<Buffer> {
  const json = format === 'json';
  const out = new ChunkWriter();
  let count = 0;
  if (json) out.write('[');
  for (;;) {
    const started = await writeNextPage(next, out, json, count);
    if (started === undefined) break;
    let step: PageStep = started;
    while (step.parts) {
      const { iterator, resume } = step.parts;
      for (let r = iterator.next(); !r.done; r = iterator.next()) yield* out.take();
      step = resume();
    }
    count += step.written;
    yield* out.take();
  }
  if (json) out.write(count ? '\n]\n' : ']\n');
  yield* out.end();
}

/**
 * How far a page is written: `written` items from its start, the last of them perhaps still being
 * written in parts (`parts` writes the rest of it, then `resume` the rest of the page).
 */
interface PageStep {
  written: number;
  parts?: { iterator: Iterator<void>; resume: () => PageStep };
}

/**
 * Reads a page and writes its items; undefined after the last page. A function of its own so that
 * the page is garbage when it returns, before the zip stream makes anyone wait: rows that lived on
 * while deflate and the disk caught up were still alive at V8's next young collections and were
 * promoted to the old generation, which only a full collection frees (on SQLite, some runs grew
 * the heap by 140 MB that way). Only a page with an item written in parts lives on until its end.
 */
async function writeNextPage(
  next: NextPage,
  out: ChunkWriter,
  json: boolean,
  before: number,
): Promise<PageStep | undefined> {
  const page = await next();
  if (!page) return undefined;
  return writeItems(page, 0, out, json, before);
}

function writeItems(page: ItemPage, from: number, out: ChunkWriter, json: boolean, before: number): PageStep {
  for (let i = from; i < page.size; i++) {
    if (json) out.write(before + i ? ',\n' : '\n');
    const parts = page.write(out, i);
    const first = parts?.next();
    if (parts && first && !first.done) {
      const resume = (): PageStep => {
        if (!json) out.write('\n');
        return writeItems(page, i + 1, out, json, before);
      };
      return { written: i + 1, parts: { iterator: parts, resume } };
    }
    if (!json) out.write('\n');
  }
  return { written: page.size };
}
