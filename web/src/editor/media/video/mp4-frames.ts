import { MediaError } from '../fetch-media';
import { createFile, DataStream, Endianness, type ISOFile, MP4BoxBuffer } from 'mp4box';
import type { ByteSource } from './byte-source';
import { looksLikeWebm, readWebmVideo, webmCodec } from './webm-demux';

/** One coded frame of the stream, in decode order. */
interface Coded {
  /** The frame's bytes, when the whole file was read; otherwise read by range from `offset`. */
  data?: Uint8Array;
  offset: number;
  size: number;
  /** Presentation time in microseconds (what the decoder hands back on the frame). */
  timestamp: number;
  duration: number;
  key: boolean;
}

/** Why a file cannot be shown, in words for the labeler. */
export class VideoError extends MediaError {}

/**
 * The file is a video, but this browser cannot decode its codec frame by frame (or has no
 * WebCodecs at all): the browser's own player may still play it.
 */
export class CodecError extends VideoError {
  constructor(
    readonly codec: string,
    /** Frames a second, as the container says (the fallback player's frame numbers). */
    readonly frameRate: number,
    message = `This browser cannot decode the video's codec (${codec}).`,
  ) {
    super(message);
  }
}

/**
 * Decoded frames kept around the playhead: at most this many bytes of pixels (I420, 1.5 bytes a
 * pixel), never fewer than 8 frames. A 1080p frame is 3 MiB: about 85 frames.
 */
export const FRAME_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * Coded bytes kept of groups read by range (a group of pictures from one keyframe to the next);
 * the farthest from the playhead are dropped first. Ten minutes of 1080p H.264 is a few hundred
 * MiB: never held whole.
 */
export const CODED_CACHE_BYTES = 64 * 1024 * 1024;

/** Groups of pictures read from the network ahead of the playhead, in the direction of play. */
const GROUPS_AHEAD = 2;

/**
 * A video's frames by index (0-based, in presentation order), decoded with WebCodecs: a frame
 * not in the cache is reached by decoding its group of pictures from the keyframe before it.
 * Decoded frames stay in a bounded cache; the farthest from the playhead are closed first.
 */
export class VideoFrames {
  readonly width: number;
  readonly height: number;
  readonly frameTotal: number;
  readonly frameRate: number;
  readonly codec: string;
  /**
   * Frames unevenly spaced (a variable frame rate): frame numbers do not map to times, so the
   * editor draws no tracks on it.
   */
  readonly vfr: boolean;
  private readonly coded: Coded[];
  /** The decode-order indexes where a group of pictures starts (a keyframe, and sample 0). */
  private readonly groups: number[];
  /** Each group's coded bytes, by group number, while read or held. */
  private readonly groupBytes = new Map<number, { size: number; data: Promise<Uint8Array[]> }>();
  private direction: 1 | -1 = 1;
  /** For each frame index, its coded sample's index (decode order). */
  private readonly order: number[];
  private readonly byTimestamp = new Map<number, number>();
  private readonly cache = new Map<number, VideoFrame>();
  private readonly limit: number;
  private decoder: VideoDecoder;
  private chain: Promise<void> = Promise.resolve();
  private playhead = 0;
  private closed = false;
  private failure: Error | undefined;

  private constructor(
    info: { width: number; height: number; codec: string; frameRate: number },
    private readonly config: VideoDecoderConfig,
    coded: Coded[],
    private readonly source: ByteSource | undefined,
  ) {
    this.width = info.width;
    this.height = info.height;
    this.codec = info.codec;
    this.frameRate = info.frameRate;
    this.coded = coded;
    this.order = coded.map((_, i) => i).sort((a, b) => coded[a]!.timestamp - coded[b]!.timestamp);
    this.order.forEach((sample, index) => this.byTimestamp.set(coded[sample]!.timestamp, index));
    this.frameTotal = coded.length;
    this.groups = coded.flatMap((c, i) => (i === 0 || c.key ? [i] : []));
    // The frames' durations in presentation order; the last may differ (the stream's end).
    // Uneven by more than a millisecond, the tick WebM timestamps are rounded to.
    const durations = this.order.slice(0, -1).map((i) => coded[i]!.duration);
    this.vfr = durations.length > 1 && Math.max(...durations) - Math.min(...durations) > 1500;
    this.limit = Math.max(8, Math.floor(FRAME_CACHE_BYTES / (this.width * this.height * 1.5)));
    this.decoder = this.makeDecoder();
  }

  /**
   * Reads an MP4, MOV or WebM file's video track; refuses what is not one or what this browser
   * cannot decode (a `CodecError`). An MP4's index (`moov`) is read first and its frames by
   * range as they are needed; a WebM is read whole.
   */
  static async open(source: ByteSource): Promise<VideoFrames> {
    const head = await source.read(0, 8);
    const { info, config, coded } = looksLikeWebm(head) ? demuxWebm(await source.all()) : await demuxMp4(source);
    if (typeof VideoDecoder === 'undefined') {
      throw new CodecError(info.codec, info.frameRate, 'This browser has no video decoder (WebCodecs).');
    }
    const support = await VideoDecoder.isConfigSupported(config).catch(() => ({ supported: false }));
    if (!support.supported) throw new CodecError(info.codec, info.frameRate);
    return new VideoFrames(info, config, coded, source);
  }

  private makeDecoder(): VideoDecoder {
    const decoder = new VideoDecoder({
      output: (frame) => this.keep(frame),
      error: (e) => {
        this.failure = new VideoError(`The video could not be decoded: ${e.message}`);
      },
    });
    decoder.configure(this.config);
    return decoder;
  }

  private keep(frame: VideoFrame) {
    const index = this.byTimestamp.get(frame.timestamp);
    if (this.closed || index === undefined || this.cache.has(index)) {
      frame.close();
      return;
    }
    this.cache.set(index, frame);
    while (this.cache.size > this.limit) {
      let farthest = -1;
      let distance = -1;
      for (const i of this.cache.keys()) {
        const d = Math.abs(i - this.playhead);
        if (d > distance) [farthest, distance] = [i, d];
      }
      this.cache.get(farthest)?.close();
      this.cache.delete(farthest);
    }
  }

  /** How many decoded frames are held now (each `width * height * 1.5` bytes). */
  get cached(): number {
    return this.cache.size;
  }

  /** The frame at an index when it is decoded and held (the playhead moves there). */
  held(index: number): VideoFrame | undefined {
    this.playhead = Math.max(0, Math.min(this.frameTotal - 1, Math.round(index)));
    return this.cache.get(this.playhead);
  }

  /** The frame at an index, decoded if it is not held; the frames after it in its group come too. */
  async frame(index: number): Promise<VideoFrame> {
    const i = Math.max(0, Math.min(this.frameTotal - 1, Math.round(index)));
    this.playhead = i;
    const held = this.cache.get(i);
    if (held) return held;
    await this.decodeGroupOf(i);
    const got = this.cache.get(i);
    if (!got) throw this.failure ?? new VideoError(`Frame ${i + 1} could not be decoded.`);
    return got;
  }

  /**
   * Decodes, in the background, the group after the playhead's in the direction of play, and
   * reads the coded bytes of the groups after it.
   */
  readAhead(index: number, direction: 1 | -1) {
    this.direction = direction;
    const ahead = Math.max(0, Math.min(this.frameTotal - 1, index + direction * Math.ceil(this.frameRate / 2)));
    if (!this.cache.has(ahead)) void this.decodeGroupOf(ahead).catch(() => undefined);
  }

  /** The group of pictures (its number) that a sample (decode order) belongs to. */
  private groupOf(sample: number): number {
    let [lo, hi] = [0, this.groups.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.groups[mid]! <= sample) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** A group's coded frames: held, or read by one range request; the farthest groups are let go. */
  private bytesOf(group: number): Promise<Uint8Array[]> {
    const start = this.groups[group]!;
    const end = this.groups[group + 1] ?? this.coded.length;
    const samples = this.coded.slice(start, end);
    if (samples.every((c) => c.data)) return Promise.resolve(samples.map((c) => c.data!));
    const held = this.groupBytes.get(group);
    if (held) return held.data;
    const from = Math.min(...samples.map((c) => c.offset));
    const to = Math.max(...samples.map((c) => c.offset + c.size));
    const data = this.source!.read(from, to - from).then((bytes) =>
      samples.map((c) => {
        if (c.offset - from + c.size > bytes.length) {
          throw new VideoError('The video file is cut short: some of its frames are not there.');
        }
        return bytes.subarray(c.offset - from, c.offset - from + c.size);
      }),
    );
    this.groupBytes.set(group, { size: to - from, data });
    data.catch(() => this.groupBytes.delete(group));
    let total = 0;
    for (const g of this.groupBytes.values()) total += g.size;
    const here = this.groupOf(this.order[this.playhead]!);
    while (total > CODED_CACHE_BYTES && this.groupBytes.size > 1) {
      let farthest = group;
      for (const g of this.groupBytes.keys()) {
        if (Math.abs(g - here) > Math.abs(farthest - here)) farthest = g;
      }
      if (farthest === group) break;
      total -= this.groupBytes.get(farthest)!.size;
      this.groupBytes.delete(farthest);
    }
    return data;
  }

  /** Bytes received from the network so far. */
  get received(): number {
    return this.source?.received ?? 0;
  }

  private decodeGroupOf(index: number): Promise<void> {
    const sample = this.order[index]!;
    const group = this.groupOf(sample);
    const run = async () => {
      if (this.closed || this.cache.has(index)) return;
      if (this.failure) throw this.failure;
      const data = await this.bytesOf(group);
      // Read on while this group decodes: the next groups in the direction of play.
      for (let k = 1; k <= GROUPS_AHEAD; k++) {
        const next = group + k * this.direction;
        if (next >= 0 && next < this.groups.length) void this.bytesOf(next).catch(() => undefined);
      }
      const start = this.groups[group]!;
      if (this.decoder.state === 'closed') this.decoder = this.makeDecoder();
      data.forEach((bytes, k) => {
        const c = this.coded[start + k]!;
        this.decoder.decode(
          new EncodedVideoChunk({
            type: c.key ? 'key' : 'delta',
            timestamp: c.timestamp,
            duration: c.duration,
            data: bytes,
          }),
        );
      });
      await this.decoder.flush();
      if (this.failure) throw this.failure;
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  close() {
    this.closed = true;
    for (const f of this.cache.values()) f.close();
    this.cache.clear();
    if (this.decoder.state !== 'closed') this.decoder.close();
  }
}

type Demuxed = {
  info: { width: number; height: number; codec: string; frameRate: number };
  config: VideoDecoderConfig;
  coded: Coded[];
};

const NOT_MP4 = 'The file is not a video this editor can read (not an MP4 or MOV file).';
const MP4_TOP = ['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip', 'pdin', 'uuid', 'styp', 'sidx', 'moof'];

/**
 * The file's `ftyp` and `moov` boxes, found by walking its top-level boxes: a box's header is
 * 16 bytes read where the box before it ends, so an index after the media data (`moov` at the
 * end) costs one small read, not the media data.
 */
async function indexBoxes(source: ByteSource): Promise<{ ftyp?: Uint8Array; moov?: Uint8Array }> {
  let ftyp: Uint8Array | undefined;
  for (let at = 0, n = 0; n < 10_000; n++) {
    const head = await source.read(at, 16);
    if (head.length < 8) break;
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const type = String.fromCharCode(...head.subarray(4, 8));
    let size = view.getUint32(0);
    if (n === 0 && !MP4_TOP.includes(type)) throw new VideoError(NOT_MP4);
    if (size === 1 && head.length >= 16) size = view.getUint32(8) * 2 ** 32 + view.getUint32(12);
    else if (size === 0 && source.length !== undefined) size = source.length - at;
    if (size < 8) {
      if (n === 0) throw new VideoError(NOT_MP4);
      break;
    }
    if (type === 'moov') {
      const moov = await source.read(at, size);
      return moov.length < size ? { ftyp } : { ftyp, moov };
    }
    if (type === 'ftyp') ftyp = await source.read(at, size);
    at += size;
  }
  return { ftyp };
}

type Mp4Track = { id: number; width: number; height: number; codec: string; frameRate: number };

/** mp4box over some of a file's bytes (from its start): its first video track, its samples extracted or not. */
function parseMp4(bytes: Uint8Array, extract: boolean): { file: ISOFile; track?: Mp4Track; coded: Coded[] } {
  const file = createFile();
  let failed = false;
  let track: Mp4Track | undefined;
  const coded: Coded[] = [];
  file.onError = () => {
    failed = true;
  };
  file.onReady = (movie) => {
    const t = movie.videoTracks[0];
    if (!t) return;
    const seconds = t.duration / t.timescale;
    track = {
      id: t.id,
      width: t.video?.width ?? t.track_width,
      height: t.video?.height ?? t.track_height,
      codec: t.codec,
      frameRate: seconds > 0 ? t.nb_samples / seconds : 30,
    };
    if (!extract) return;
    file.setExtractionOptions(t.id, null, { nbSamples: Infinity });
    file.start();
  };
  file.onSamples = (_id, _user, samples) => {
    for (const s of samples) if (s.data) coded.push(codedOf(s, s.data));
  };
  const copy = bytes.slice();
  try {
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy.buffer, 0), true);
    file.flush();
  } catch {
    throw new VideoError(NOT_MP4);
  }
  if (!track) throw new VideoError(failed ? NOT_MP4 : 'The video has no picture track.');
  return { file, track, coded };
}

function codedOf(
  s: { offset: number; size: number; cts: number; duration: number; timescale: number; is_sync: boolean },
  data?: Uint8Array,
): Coded {
  return {
    ...(data ? { data } : {}),
    offset: s.offset,
    size: s.size,
    timestamp: Math.round((s.cts * 1e6) / s.timescale),
    duration: Math.round((s.duration * 1e6) / s.timescale),
    key: s.is_sync,
  };
}

/**
 * An MP4 or MOV file's first video track, its samples in decode order: the index (`moov`) read
 * and the samples' places taken from it, their bytes read later; a fragmented file (samples in
 * `moof` boxes) is read whole.
 */
async function demuxMp4(source: ByteSource): Promise<Demuxed> {
  const { ftyp, moov } = await indexBoxes(source);
  if (!moov) throw new VideoError('The video file is cut short: its index (the moov box) is not there.');
  const index = new Uint8Array((ftyp?.length ?? 0) + moov.length);
  index.set(ftyp ?? [], 0);
  index.set(moov, ftyp?.length ?? 0);
  let { file, track, coded } = parseMp4(index, false);
  const samples = file.getTrackById(track!.id)?.samples ?? [];
  if (samples.length > 0) {
    const end = source.length ?? Infinity;
    coded = samples.filter((s) => s.offset + s.size <= end).map((s) => codedOf(s));
  } else {
    ({ file, track, coded } = parseMp4(await source.all(), true));
  }
  if (coded.length === 0) throw new VideoError('The video file is cut short: none of its frames are there.');
  const info = track!;
  const description = describe(file.getTrackById(info.id));
  const config: VideoDecoderConfig = {
    codec: info.codec,
    codedWidth: info.width,
    codedHeight: info.height,
    ...(description ? { description } : {}),
  };
  return { info, config, coded };
}

/** A WebM file's first video track, its frames in decode order with their durations. */
function demuxWebm(bytes: Uint8Array): Demuxed {
  const notVideo = 'The file is not a video this editor can read (not a WebM file it can parse).';
  let video;
  try {
    video = readWebmVideo(bytes);
  } catch {
    throw new VideoError(notVideo);
  }
  if (!video) throw new VideoError('The video has no picture track.');
  if (!(video.width > 0 && video.height > 0)) throw new VideoError(notVideo);
  if (video.blocks.length === 0) throw new VideoError('The video file is cut short: none of its frames are there.');
  const codec = webmCodec(video);
  if (!codec) throw new CodecError(video.codecId, video.frameNs ? 1e9 / video.frameNs : 30);
  const times = video.blocks.map((b) => b.timestamp).sort((a, b) => a - b);
  const next = new Map(times.map((t, i) => [t, times[i + 1]]));
  const frameUs = video.frameNs ? video.frameNs / 1000 : undefined;
  const span = times.length > 1 ? (times.at(-1)! - times[0]!) / (times.length - 1) : (frameUs ?? 33_333);
  const coded = video.blocks.map((b) => {
    const after = next.get(b.timestamp);
    const duration = after === undefined ? Math.round(frameUs ?? span) : after - b.timestamp;
    return { ...b, offset: 0, size: b.data.length, duration };
  });
  return {
    info: {
      width: video.width,
      height: video.height,
      codec: codec.codec,
      frameRate: frameUs ? 1e6 / frameUs : 1e6 / span,
    },
    config: {
      codec: codec.codec,
      codedWidth: video.width,
      codedHeight: video.height,
      ...(codec.description ? { description: codec.description } : {}),
    },
    coded,
  };
}

/** The decoder's description (avcC, hvcC, vpcC, av1C), as WebCodecs wants it: the box's body. */
function describe(trak: unknown): Uint8Array | undefined {
  type Writable = { write(stream: DataStream): void };
  const entries =
    (trak as { mdia?: { minf?: { stbl?: { stsd?: { entries?: Record<string, Writable | undefined>[] } } } } }).mdia
      ?.minf?.stbl?.stsd?.entries ?? [];
  for (const entry of entries) {
    const box = entry.avcC ?? entry.hvcC ?? entry.vpcC ?? entry.av1C;
    if (!box) continue;
    const stream = new DataStream(undefined, 0, Endianness.BIG_ENDIAN);
    box.write(stream);
    return new Uint8Array(stream.buffer, 8);
  }
  return undefined;
}
