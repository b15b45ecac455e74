/**
 * A WebM (Matroska) reader for the browser: the first video track's codec, picture size and
 * coded frames with their timestamps, ready for WebCodecs. A block may carry several frames
 * (lacing: Xiph, EBML or fixed-size, as muxers do for audio and seldom for video): each is a
 * frame of its own, timed by the track's frame duration. Clusters (and the segment) of unknown
 * size, as a live recorder writes them, end where the next cluster or top-level element starts.
 */

const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const VIDEO = 0xe0;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
const REFERENCE_BLOCK = 0xfb;
const SIMPLE_BLOCK = 0xa3;
const CLUSTER_TIMESTAMP = 0xe7;
const TIMESTAMP_SCALE = 0x2ad7b1;
const INFO = 0x1549a966;
const TRACK_NUMBER = 0xd7;
const TRACK_TYPE = 0x83;
const CODEC_ID = 0x86;
const CODEC_PRIVATE = 0x63a2;
const DEFAULT_DURATION = 0x23e383;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;

/** Elements whose children are read; the others are skipped whole. */
const MASTERS = new Set([SEGMENT, CLUSTER, TRACKS, TRACK_ENTRY, VIDEO, INFO]);

export interface WebmBlock {
  data: Uint8Array;
  /** Microseconds. */
  timestamp: number;
  key: boolean;
}

export interface WebmVideo {
  /** The Matroska codec id: V_VP8, V_VP9, V_AV1, ... */
  codecId: string;
  codecPrivate: Uint8Array | undefined;
  width: number;
  height: number;
  /** Nanoseconds a frame lasts, when the track says so. */
  frameNs: number | undefined;
  blocks: WebmBlock[];
}

/** An EBML variable-length integer: an element id keeps its marker bit, a size does not. */
function vint(b: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = b[at];
  if (first === undefined || first === 0) return undefined;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  if (at + length > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = b[at + i]!;
    if (byte !== 0xff) allOnes = false;
    value = value * 256 + byte;
  }
  // A size of all ones is "unknown" (a live stream's segment or cluster).
  return { value: !keepMarker && allOnes ? -1 : value, length };
}

function uint(b: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + b[at + i]!;
  return v;
}

/**
 * The frames of a block's body from `from` to `to`: one, or those of its lace (1 Xiph, 2 fixed
 * size, 3 EBML); undefined when the lace's sizes do not fit the block.
 */
function laced(b: Uint8Array, from: number, to: number, lacing: number): Uint8Array[] | undefined {
  if (lacing === 0) return [b.subarray(from, to)];
  if (from >= to) return undefined;
  const count = b[from]! + 1;
  let at = from + 1;
  const sizes: number[] = [];
  if (lacing === 1) {
    for (let i = 0; i < count - 1; i++) {
      let size = 0;
      let byte: number;
      do {
        byte = b[at++] ?? 0;
        size += byte;
      } while (byte === 255 && at < to);
      sizes.push(size);
    }
  } else if (lacing === 3) {
    for (let i = 0; i < count - 1; i++) {
      const v = vint(b, at, false);
      if (!v || v.value < 0) return undefined;
      at += v.length;
      // After the first, each size is the one before plus a signed difference (biased by half the range).
      sizes.push(i === 0 ? v.value : sizes[i - 1]! + v.value - (2 ** (7 * v.length - 1) - 1));
    }
  } else {
    const each = (to - at) / count;
    if (!Number.isInteger(each)) return undefined;
    sizes.push(...Array.from({ length: count - 1 }, () => each));
  }
  const last = to - at - sizes.reduce((n, x) => n + x, 0);
  if (last < 0 || sizes.some((x) => x < 0)) return undefined;
  sizes.push(last);
  const frames: Uint8Array[] = [];
  for (const size of sizes) {
    frames.push(b.subarray(at, at + size));
    at += size;
  }
  return frames;
}

export function looksLikeWebm(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && uint(bytes, 0, 4) === EBML_HEADER;
}

/** Reads the file's first video track and its frames; undefined when the file holds none. */
export function readWebmVideo(bytes: Uint8Array): WebmVideo | undefined {
  let scale = 1_000_000;
  let clusterTime = 0;
  let video: WebmVideo | undefined;
  let videoTrack: number | undefined;
  type Entry = Partial<Omit<WebmVideo, 'blocks'>> & { type?: number; number?: number };
  let entry: Entry = {};
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  const block = (body: number, end: number, simple: boolean, referenced: boolean) => {
    const track = vint(bytes, body, false);
    if (!track || track.value !== videoTrack || !video) return;
    const at = body + track.length;
    const flags = bytes[at + 2]!;
    const frames = laced(bytes, at + 3, end, (flags >> 1) & 3);
    // Frames of a lace after the first have no time of their own: the track's frame duration says it.
    if (!frames || (frames.length > 1 && !video.frameNs)) return;
    const ticks = clusterTime + view.getInt16(at);
    const key = simple ? (flags & 0x80) !== 0 : !referenced;
    frames.forEach((data, i) => {
      const ns = ticks * scale + i * (video!.frameNs ?? 0);
      video!.blocks.push({ data, timestamp: Math.round(ns / 1000), key });
    });
  };

  const group = (from: number, to: number) => {
    let found: [number, number] | undefined;
    let referenced = false;
    for (let at = from; at < to;) {
      const id = vint(bytes, at, true);
      const size = id && vint(bytes, at + id.length, false);
      if (!id || !size || size.value < 0) return;
      const body = at + id.length + size.length;
      if (id.value === BLOCK) found = [body, Math.min(to, body + size.value)];
      else if (id.value === REFERENCE_BLOCK) referenced = true;
      at = body + size.value;
    }
    if (found) block(found[0], found[1], false, referenced);
  };

  const walk = (from: number, to: number): void => {
    let at = from;
    while (at < to) {
      const id = vint(bytes, at, true);
      const size = id && vint(bytes, at + id.length, false);
      if (!id || !size) return;
      const body = at + id.length + size.length;
      const end = size.value < 0 ? to : Math.min(to, body + size.value);
      if (MASTERS.has(id.value) && size.value < 0 && (id.value === CLUSTER || id.value === SEGMENT)) {
        // Unknown size: its children are read as if they followed it, up to the next cluster.
        at = body;
        continue;
      }
      if (MASTERS.has(id.value)) {
        if (id.value === TRACK_ENTRY) entry = {};
        walk(body, end);
        if (id.value === TRACK_ENTRY && entry.type === 1 && !video && entry.number !== undefined) {
          videoTrack = entry.number;
          video = {
            codecId: entry.codecId ?? '',
            codecPrivate: entry.codecPrivate,
            width: entry.width ?? 0,
            height: entry.height ?? 0,
            frameNs: entry.frameNs,
            blocks: [],
          };
        }
      } else if (size.value >= 0 && body + size.value <= bytes.length) {
        const n = size.value;
        if (id.value === TIMESTAMP_SCALE) scale = uint(bytes, body, n);
        else if (id.value === TRACK_TYPE) entry.type = uint(bytes, body, n);
        else if (id.value === TRACK_NUMBER) entry.number = uint(bytes, body, n);
        else if (id.value === CODEC_ID) entry.codecId = new TextDecoder().decode(bytes.subarray(body, body + n));
        else if (id.value === CODEC_PRIVATE) entry.codecPrivate = bytes.slice(body, body + n);
        else if (id.value === DEFAULT_DURATION) entry.frameNs = uint(bytes, body, n);
        else if (id.value === PIXEL_WIDTH) entry.width = uint(bytes, body, n);
        else if (id.value === PIXEL_HEIGHT) entry.height = uint(bytes, body, n);
        else if (id.value === CLUSTER_TIMESTAMP) clusterTime = uint(bytes, body, n);
        else if (id.value === SIMPLE_BLOCK) block(body, body + n, true, false);
        else if (id.value === BLOCK_GROUP) group(body, body + n);
      } else if (size.value < 0) return;
      at = end;
    }
  };
  walk(0, bytes.length);
  return video;
}

/**
 * The WebCodecs codec string and description of a WebM video track: vp8, vp09.PP.LL.DD (from
 * the track's codec features, else the first frame's profile), av01.P.LLT.DD (from its av1C).
 */
export function webmCodec(v: WebmVideo): { codec: string; description?: Uint8Array } | undefined {
  const two = (n: number) => String(n).padStart(2, '0');
  if (v.codecId === 'V_VP8') return { codec: 'vp8' };
  if (v.codecId === 'V_VP9') {
    const features = new Map<number, number>();
    const p = v.codecPrivate ?? new Uint8Array();
    for (let at = 0; at + 2 <= p.length; at += 2 + p[at + 1]!) features.set(p[at]!, p[at + 2] ?? 0);
    // The uncompressed header's first byte: frame marker (2 bits), profile low bit, high bit.
    const head = v.blocks[0]?.data[0] ?? 0;
    const profile = features.get(1) ?? ((head >> 5) & 1) | (((head >> 4) & 1) << 1);
    const level = features.get(2) ?? 10;
    const depth = features.get(3) ?? (profile >= 2 ? 10 : 8);
    return { codec: `vp09.${two(profile)}.${two(level)}.${two(depth)}` };
  }
  if (v.codecId === 'V_AV1') {
    const c = v.codecPrivate;
    if (!c || c.length < 4) return { codec: 'av01.0.08M.08' };
    const profile = c[1]! >> 5;
    const level = c[1]! & 0x1f;
    const tier = c[2]! & 0x80 ? 'H' : 'M';
    const depth = c[2]! & 0x40 ? (profile === 2 && c[2]! & 0x20 ? 12 : 10) : 8;
    return { codec: `av01.${profile}.${two(level)}${tier}.${two(depth)}`, description: c };
  }
  return undefined;
}
