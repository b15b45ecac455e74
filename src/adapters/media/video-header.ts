import { createFile, MP4BoxBuffer } from 'mp4box';

/*
 * What a video's container says of it, read from its header bytes without decoding a frame: the
 * picture's size, its frame count and rate, and whether frames are evenly spaced. MP4 and MOV are
 * read with mp4box (their index, `moov`, is at the start of a file made for streaming and at the
 * end of most others: the reader says where to read next); WebM and Matroska with the few EBML
 * elements that hold these facts.
 */

export interface VideoFacts {
  width: number;
  height: number;
  frameTotal: number;
  frameRate: number;
  /** Frames are not evenly spaced (variable frame rate). */
  vfr: boolean;
}

/** The facts, or where the container's index lies when the bytes read so far do not hold it. */
export type Mp4Reading = { facts: VideoFacts } | { readFrom: number; bytes: number } | { problem: string };

/** The largest index (`moov`) read; an hour of 60 fps video indexes in about 4 MiB. */
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;

const toArrayBuffer = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** The top-level boxes in `head` (read from offset 0): where the index starts when it is not there. */
function indexAfter(head: Buffer, fileSize: number | undefined): { readFrom: number; bytes: number } | undefined {
  let at = 0;
  while (at + 8 <= head.length) {
    let size = head.readUInt32BE(at);
    const type = head.toString('latin1', at + 4, at + 8);
    if (size === 1) {
      if (at + 16 > head.length) return undefined;
      size = Number(head.readBigUInt64BE(at + 8));
    } else if (size === 0) {
      // The box runs to the end of the file: nothing after it.
      return type === 'moov' ? { readFrom: at, bytes: MAX_INDEX_BYTES } : undefined;
    }
    if (size < 8) return undefined;
    if (type === 'moov') return { readFrom: at, bytes: size };
    at += size;
    if (at >= head.length) {
      if (fileSize !== undefined && at >= fileSize) return undefined;
      // The next box starts past what was read (after the media data): its header says what it is.
      return {
        readFrom: at,
        bytes: Math.min(MAX_INDEX_BYTES, fileSize === undefined ? MAX_INDEX_BYTES : fileSize - at),
      };
    }
  }
  return undefined;
}

/**
 * Reads an MP4 or MOV from the parts of it read so far (`parts`, each with the file offset it
 * starts at; the first at 0). Without the index in them, says where to read it.
 */
export function readMp4(parts: { at: number; bytes: Buffer }[], fileSize?: number): Mp4Reading {
  const first = parts[0];
  if (!first || first.at !== 0) return { problem: 'the start of the file was not read' };
  const head = first.bytes;
  if (head.length < 8 || !['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].includes(head.toString('latin1', 4, 8))) {
    return { problem: 'the file is not an MP4 or MOV video' };
  }
  const file = createFile();
  let movie: Parameters<NonNullable<typeof file.onReady>>[0] | undefined;
  file.onReady = (m) => {
    movie = m;
  };
  try {
    for (const p of parts) file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(toArrayBuffer(p.bytes), p.at), false);
    file.flush();
  } catch {
    return { problem: 'the video file is damaged (its index cannot be read)' };
  }
  if (!movie) {
    if (parts.length > 1) return { problem: 'the video file is damaged (its index cannot be read)' };
    const next = indexAfter(head, fileSize);
    if (!next) return { problem: 'the video file has no index (moov), or it is cut short' };
    if (next.bytes > MAX_INDEX_BYTES) {
      return { problem: `the video's index is larger than ${MAX_INDEX_BYTES / 1024 / 1024} MiB` };
    }
    return next;
  }
  const track = movie.videoTracks[0];
  if (!track) return { problem: 'the video has no picture track' };
  const seconds = track.duration / track.timescale;
  const width = track.video?.width ?? track.track_width;
  const height = track.video?.height ?? track.track_height;
  if (!(width > 0 && height > 0) || !(track.nb_samples > 0)) return { problem: 'the video track holds no frames' };
  const stts = (
    file.getTrackById(track.id) as { mdia?: { minf?: { stbl?: { stts?: { sample_deltas?: number[] } } } } } | undefined
  )?.mdia?.minf?.stbl?.stts;
  // Evenly spaced frames have one duration (the last entry may differ: the final frame's).
  const deltas = stts?.sample_deltas ?? [];
  const vfr = new Set(deltas.slice(0, -1)).size > 1;
  return {
    facts: {
      width,
      height,
      frameTotal: track.nb_samples,
      frameRate: seconds > 0 ? Math.round((track.nb_samples / seconds) * 1000) / 1000 : 0,
      vfr,
    },
  };
}

/* EBML (WebM, Matroska): element ids with their length marker bits kept, as the specification lists them. */
const EBML_HEADER = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMESTAMP_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const TRACK_NUMBER = 0xd7;
const DEFAULT_DURATION = 0x23e383;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;
const CLUSTER = 0x1f43b675;
const CLUSTER_TIMESTAMP = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
/** Elements whose children are read; everything else is stepped over. */
const MASTERS = new Set([SEGMENT, INFO, TRACKS, TRACK_ENTRY, VIDEO, CLUSTER, BLOCK_GROUP]);

/** A variable-length integer at `at`: its value and length; the id form keeps the marker bit. */
function vint(b: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = b[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > b.length || length > 8) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = b[at + i] as number;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  // A size of all ones is "unknown" (a live stream's segment or cluster): read to the end.
  return { value: !keepMarker && allOnes ? -1 : value, length };
}

function uint(b: Buffer, at: number, size: number): number {
  let v = 0;
  for (let i = 0; i < size; i++) v = v * 256 + (b[at + i] as number);
  return v;
}

/**
 * Reads a WebM or Matroska file's first bytes: the picture's size from its video track, the
 * duration and timestamp scale from the segment's info, the frame rate from the track's default
 * frame duration, or else from the spacing of the frames in the clusters read (`vfr` when that
 * spacing varies).
 */
export function readWebm(head: Buffer): { facts: VideoFacts } | { problem: string } {
  const top = vint(head, 0, true);
  if (!top || top.value !== EBML_HEADER) return { problem: 'the file is not a WebM or Matroska video' };
  let scale = 1_000_000;
  let duration: number | undefined;
  let width = 0;
  let height = 0;
  let videoTrack: number | undefined;
  let frameNs: number | undefined;
  let track: { type?: number; number?: number; frameNs?: number; width?: number; height?: number } = {};
  let clusterTime = 0;
  const frameTimes: number[] = [];
  const endTrack = () => {
    if (track.type === 1 && videoTrack === undefined) {
      videoTrack = track.number;
      frameNs = track.frameNs;
      width = track.width ?? 0;
      height = track.height ?? 0;
    }
    track = {};
  };
  const walk = (from: number, to: number): void => {
    let at = from;
    while (at < to) {
      const id = vint(head, at, true);
      if (!id) return;
      const size = vint(head, at + id.length, false);
      if (!size) return;
      const body = at + id.length + size.length;
      const end = size.value < 0 ? to : Math.min(to, body + size.value);
      const whole = size.value >= 0 && body + size.value <= head.length;
      if (MASTERS.has(id.value)) {
        if (id.value === TRACK_ENTRY) track = {};
        walk(body, end);
        if (id.value === TRACK_ENTRY) endTrack();
      } else if (whole) {
        const n = size.value;
        if (id.value === TIMESTAMP_SCALE) scale = uint(head, body, n);
        else if (id.value === DURATION) duration = n === 4 ? head.readFloatBE(body) : head.readDoubleBE(body);
        else if (id.value === TRACK_TYPE) track.type = uint(head, body, n);
        else if (id.value === TRACK_NUMBER) track.number = uint(head, body, n);
        else if (id.value === DEFAULT_DURATION) track.frameNs = uint(head, body, n);
        else if (id.value === PIXEL_WIDTH) track.width = uint(head, body, n);
        else if (id.value === PIXEL_HEIGHT) track.height = uint(head, body, n);
        else if (id.value === CLUSTER_TIMESTAMP) clusterTime = uint(head, body, n);
        else if ((id.value === SIMPLE_BLOCK || id.value === BLOCK) && videoTrack !== undefined) {
          const number = vint(head, body, false);
          if (number?.value === videoTrack) frameTimes.push(clusterTime + head.readInt16BE(body + number.length));
        }
      }
      if (size.value < 0 && !MASTERS.has(id.value)) return;
      at = end;
    }
  };
  walk(0, head.length);
  if (videoTrack === undefined)
    return { problem: 'the video has no picture track, or its header is past the first bytes read' };
  if (!(width > 0 && height > 0)) return { problem: "the video track's header holds no picture size" };
  const seconds = duration === undefined ? undefined : (duration * scale) / 1e9;
  // The spacing of the frames read: uneven (by more than the one tick timestamps round to) is a
  // variable frame rate, whatever the track's default frame duration says; without that
  // default, the mean spacing tells the rate.
  const times = [...frameTimes].sort((a, b) => a - b);
  const steps = times.slice(1).map((t, i) => t - (times[i] as number));
  const vfr = steps.length > 1 && Math.max(...steps) - Math.min(...steps) > 1;
  const meanNs = steps.length ? ((times.at(-1)! - times[0]!) / steps.length) * scale : undefined;
  const stepNs = vfr ? meanNs : (frameNs ?? meanNs);
  const frameRate = stepNs ? Math.round((1e9 / stepNs) * 1000) / 1000 : 0;
  if (!frameRate || seconds === undefined) return { problem: "the video's header holds no duration or frame rate" };
  return { facts: { width, height, frameRate, frameTotal: Math.round(seconds * frameRate), vfr } };
}
