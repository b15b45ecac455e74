import { MediaError } from '../fetch-media';
import { createFile, DataStream, Endianness, MP4BoxBuffer } from 'mp4box';
import { looksLikeWebm, readWebmVideo, webmCodec } from './webm-demux';

/** One coded frame of the stream, in decode order. */
interface Coded {
  data: Uint8Array;
  /** Presentation time in microseconds (what the decoder hands back on the frame). */
  timestamp: number;
  duration: number;
  key: boolean;
}

/** Why a file cannot be shown, in words for the labeler. */
export class VideoError extends MediaError {}

/** The file is a video, but this browser cannot decode its codec. */
export class CodecError extends VideoError {
  constructor(readonly codec: string) {
    super(`This browser cannot decode the video's codec (${codec}).`);
  }
}

/**
 * Decoded frames kept around the playhead: at most this many bytes of pixels (I420, 1.5 bytes a
 * pixel), never fewer than 8 frames. A 1080p frame is 3 MiB: about 85 frames.
 */
export const FRAME_CACHE_BYTES = 256 * 1024 * 1024;

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
  ) {
    this.width = info.width;
    this.height = info.height;
    this.codec = info.codec;
    this.frameRate = info.frameRate;
    this.coded = coded;
    this.order = coded.map((_, i) => i).sort((a, b) => coded[a]!.timestamp - coded[b]!.timestamp);
    this.order.forEach((sample, index) => this.byTimestamp.set(coded[sample]!.timestamp, index));
    this.frameTotal = coded.length;
    // The frames' durations in presentation order; the last may differ (the stream's end).
    // Uneven by more than a millisecond, the tick WebM timestamps are rounded to.
    const durations = this.order.slice(0, -1).map((i) => coded[i]!.duration);
    this.vfr = durations.length > 1 && Math.max(...durations) - Math.min(...durations) > 1500;
    this.limit = Math.max(8, Math.floor(FRAME_CACHE_BYTES / (this.width * this.height * 1.5)));
    this.decoder = this.makeDecoder();
  }

  /**
   * Reads an MP4, MOV or WebM file's video track; refuses what is not one or what this browser
   * cannot decode (a `CodecError`).
   */
  static async open(bytes: ArrayBuffer): Promise<VideoFrames> {
    const { info, config, coded } = looksLikeWebm(new Uint8Array(bytes, 0, Math.min(4, bytes.byteLength)))
      ? demuxWebm(bytes)
      : demuxMp4(bytes);
    if (typeof VideoDecoder === 'undefined') throw new VideoError('This browser has no video decoder (WebCodecs).');
    const support = await VideoDecoder.isConfigSupported(config).catch(() => ({ supported: false }));
    if (!support.supported) throw new CodecError(info.codec);
    return new VideoFrames(info, config, coded);
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

  /** Decodes, in the background, the group after the playhead's in the direction of play. */
  readAhead(index: number, direction: 1 | -1) {
    const ahead = Math.max(0, Math.min(this.frameTotal - 1, index + direction * Math.ceil(this.frameRate / 2)));
    if (!this.cache.has(ahead)) void this.decodeGroupOf(ahead).catch(() => undefined);
  }

  private decodeGroupOf(index: number): Promise<void> {
    const run = async () => {
      if (this.closed || this.cache.has(index)) return;
      if (this.failure) throw this.failure;
      const sample = this.order[index]!;
      let start = sample;
      while (start > 0 && !this.coded[start]!.key) start--;
      let end = sample + 1;
      while (end < this.coded.length && !this.coded[end]!.key) end++;
      if (this.decoder.state === 'closed') this.decoder = this.makeDecoder();
      for (let s = start; s < end; s++) {
        const c = this.coded[s]!;
        this.decoder.decode(
          new EncodedVideoChunk({
            type: c.key ? 'key' : 'delta',
            timestamp: c.timestamp,
            duration: c.duration,
            data: c.data,
          }),
        );
      }
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

/** An MP4 or MOV file's first video track, its samples in decode order. */
function demuxMp4(bytes: ArrayBuffer): Demuxed {
  const file = createFile();
  let failed: string | undefined;
  const coded: Coded[] = [];
  let ready: { id: number; width: number; height: number; codec: string; frameRate: number } | undefined;
  file.onError = (_module: string, message: string) => {
    failed = message;
  };
  file.onReady = (movie) => {
    const track = movie.videoTracks[0];
    if (!track) return;
    const seconds = track.duration / track.timescale;
    ready = {
      id: track.id,
      width: track.video?.width ?? track.track_width,
      height: track.video?.height ?? track.track_height,
      codec: track.codec,
      frameRate: seconds > 0 ? track.nb_samples / seconds : 30,
    };
    file.setExtractionOptions(track.id, null, { nbSamples: Infinity });
    file.start();
  };
  file.onSamples = (_id, _user, samples) => {
    for (const s of samples) {
      if (!s.data) continue;
      coded.push({
        data: s.data,
        timestamp: Math.round((s.cts * 1e6) / s.timescale),
        duration: Math.round((s.duration * 1e6) / s.timescale),
        key: s.is_sync,
      });
    }
  };
  try {
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes, 0), true);
    file.flush();
  } catch {
    throw new VideoError('The file is not a video this editor can read (not an MP4 or MOV file).');
  }
  if (!ready) {
    throw new VideoError(
      failed || bytes.byteLength < 16 || !looksLikeMp4(bytes)
        ? 'The file is not a video this editor can read (not an MP4 or MOV file).'
        : 'The video has no picture track.',
    );
  }
  if (coded.length === 0) throw new VideoError('The video file is cut short: none of its frames are there.');
  const info = ready;
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
function demuxWebm(bytes: ArrayBuffer): Demuxed {
  const notVideo = 'The file is not a video this editor can read (not a WebM file it can parse).';
  let video;
  try {
    video = readWebmVideo(new Uint8Array(bytes));
  } catch {
    throw new VideoError(notVideo);
  }
  if (!video) throw new VideoError('The video has no picture track.');
  if (!(video.width > 0 && video.height > 0)) throw new VideoError(notVideo);
  if (video.blocks.length === 0) throw new VideoError('The video file is cut short: none of its frames are there.');
  const codec = webmCodec(video);
  if (!codec) throw new CodecError(video.codecId);
  const times = video.blocks.map((b) => b.timestamp).sort((a, b) => a - b);
  const next = new Map(times.map((t, i) => [t, times[i + 1]]));
  const frameUs = video.frameNs ? video.frameNs / 1000 : undefined;
  const span = times.length > 1 ? (times.at(-1)! - times[0]!) / (times.length - 1) : (frameUs ?? 33_333);
  const coded = video.blocks.map((b) => {
    const after = next.get(b.timestamp);
    return { ...b, duration: after === undefined ? Math.round(frameUs ?? span) : after - b.timestamp };
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

function looksLikeMp4(bytes: ArrayBuffer): boolean {
  const head = new TextDecoder('latin1').decode(new Uint8Array(bytes, 4, 4));
  return ['ftyp', 'moov', 'mdat', 'free', 'wide', 'skip'].includes(head);
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
