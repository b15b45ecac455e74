import { fetchMedia, refusalOf } from '../fetch-media';

/**
 * The first request asks for this many bytes: an MP4's `ftyp` and, when it comes first, its
 * `moov` (76 KiB for ten minutes at 30 fps) and often the first group of pictures, so the first
 * frame needs one round trip instead of three.
 */
export const PROBE_BYTES = 256 * 1024;

/**
 * Where a video's bytes come from: the whole file in memory (a server that answers no ranges),
 * or byte ranges of its address read as they are needed.
 */
export interface ByteSource {
  /** The file's length when it is known (the whole file, or a `Content-Range` the page may read). */
  readonly length: number | undefined;
  /** Whether the whole file is in memory (no range requests). */
  readonly whole: boolean;
  /** Up to `size` bytes from `offset`: fewer only where the file ends. */
  read(offset: number, size: number): Promise<Uint8Array>;
  /** The whole file (a WebM, a fragmented MP4): downloaded whole where only ranges were read. */
  all(): Promise<Uint8Array>;
  /** Bytes received from the network so far. */
  readonly received: number;
}

/** The whole file, already in memory. */
export function wholeSource(bytes: ArrayBuffer): ByteSource {
  const all = new Uint8Array(bytes);
  return {
    length: all.length,
    whole: true,
    received: all.length,
    read: async (offset, size) => all.subarray(offset, Math.min(all.length, offset + size)),
    all: async () => all,
  };
}

/** The total of a `Content-Range: bytes a-b/total` header, when the page may read it. */
function totalOf(res: Response): number | undefined {
  const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * Opens of an address under way or done, by address, for a minute: the work page's early start
 * and the editor's own open share one, whichever comes first.
 */
const opening = new Map<string, Promise<ByteSource>>();

/**
 * Opens a video's address: asks for its first bytes by a range request and, when the server
 * answers 206, reads the rest by ranges as they are needed; a server that answers the whole file
 * (200, no ranges), or a cross-origin one that refuses the `Range` header, gives the whole file.
 * The work page calls it as soon as the task is known, while the editor's code and the task's
 * other requests arrive; the editor's call then finds it under way (the file is opened once).
 */
export function openSource(url: string, noun: string): Promise<ByteSource> {
  const known = opening.get(url);
  if (known) return known;
  const opened = probe(url, noun);
  opening.set(url, opened);
  const forget = () => opening.get(url) === opened && opening.delete(url);
  opened.then(() => setTimeout(forget, 60_000), forget);
  return opened;
}

async function probe(url: string, noun: string): Promise<ByteSource> {
  const first = await fetch(url, { headers: { range: `bytes=0-${PROBE_BYTES - 1}` } }).catch(() => null);
  // A storage whose CORS rules do not allow the Range header: the whole file.
  if (!first) return wholeSource(await fetchMedia(url, noun));
  const problem = refusalOf(noun, first);
  if (problem) throw problem;
  if (first.status !== 206) return wholeSource(await first.arrayBuffer());
  return new RangeSource(url, noun, new Uint8Array(await first.arrayBuffer()), totalOf(first));
}

/** Byte ranges of an address; the first bytes (the probe's answer) are kept. */
class RangeSource implements ByteSource {
  readonly whole = false;
  received: number;
  constructor(
    private readonly url: string,
    private readonly noun: string,
    private readonly head: Uint8Array,
    readonly length: number | undefined,
  ) {
    this.received = head.length;
  }

  async read(offset: number, size: number): Promise<Uint8Array> {
    const end = this.length === undefined ? offset + size : Math.min(this.length, offset + size);
    if (end <= offset) return new Uint8Array();
    if (end <= this.head.length) return this.head.subarray(offset, end);
    // A range that starts in the first bytes (an index longer than they are): only the rest is asked for.
    if (offset < this.head.length) {
      const rest = await this.read(this.head.length, end - this.head.length);
      const joined = new Uint8Array(this.head.length - offset + rest.length);
      joined.set(this.head.subarray(offset), 0);
      joined.set(rest, this.head.length - offset);
      return joined;
    }
    const res = await fetch(this.url, { headers: { range: `bytes=${offset}-${end - 1}` } }).catch(() => null);
    if (res?.status === 416) return new Uint8Array();
    const problem = refusalOf(this.noun, res);
    if (problem) throw problem;
    const body = new Uint8Array(await res!.arrayBuffer());
    this.received += body.length;
    // A server that stopped answering ranges sends the whole file: the part asked for is in it.
    return res!.status === 206 ? body.subarray(0, end - offset) : body.subarray(offset, end);
  }

  async all(): Promise<Uint8Array> {
    const body = new Uint8Array(await fetchMedia(this.url, this.noun));
    this.received += body.length;
    return body;
  }
}
