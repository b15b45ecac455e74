import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWebmVideo, type WebmVideo } from '../../web/src/editor/media/video/webm-demux.js';

/*
 * The editor's WebM reader on files ffmpeg makes (VP9, written to a file: every size known; and
 * to a pipe: a segment of unknown size), the same files with every cluster's size made unknown
 * (as a live recorder leaves them), and files built here byte by byte where ffmpeg cannot make
 * them: frames laced in one block (Xiph, EBML and fixed-size lacing), each read as a frame of
 * its own, timed by the track's frame duration.
 */

const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;

function ffmpegWebm(toPipe: boolean): Buffer {
  const args = [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=30:duration=1'],
    ...['-c:v', 'libvpx-vp9', '-g', '10', '-deadline', 'realtime', '-f', 'webm'],
  ];
  if (toPipe) return execFileSync('ffmpeg', [...args, 'pipe:1'], { maxBuffer: 1 << 26 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-webm-'));
  const out = path.join(dir, 'clip.webm');
  execFileSync('ffmpeg', [...args, out]);
  const body = fs.readFileSync(out);
  fs.rmSync(dir, { recursive: true, force: true });
  return body;
}

/** An element id's bytes (ids keep their length marker). */
function idBytes(id: number): number[] {
  const out: number[] = [];
  for (let v = id; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return out;
}

/** An element with an 8-byte size. */
function el(id: number, ...body: (Uint8Array | number[])[]): Uint8Array {
  const parts = body.map((b) => Uint8Array.from(b));
  const length = parts.reduce((n, p) => n + p.length, 0);
  const size = [0x01, 0, 0, 0, 0, 0, 0, 0];
  for (let i = 7, v = length; i > 0; i--, v = Math.floor(v / 256)) size[i] = v % 256;
  return Uint8Array.from([...idBytes(id), ...size, ...parts.flatMap((p) => [...p])]);
}

const uintBytes = (v: number, n: number) =>
  Array.from({ length: n }, (_, i) => Math.floor(v / 256 ** (n - 1 - i)) % 256);

/** Rewrites the size of every element with this id (at any depth under the segment) as unknown: all ones. */
function unknownSizes(file: Uint8Array, target: number): Uint8Array {
  const out = Uint8Array.from(file);
  const vlen = (b: number) => Math.clz32(b) - 23;
  const walk = (from: number, to: number, depth: number) => {
    for (let at = from; at < to;) {
      const idLen = vlen(out[at]!);
      const id = out.subarray(at, at + idLen).reduce((v, b) => v * 256 + b, 0);
      const sizeAt = at + idLen;
      const sizeLen = vlen(out[sizeAt]!);
      let size = out[sizeAt]! & (0xff >> sizeLen);
      for (let i = 1; i < sizeLen; i++) size = size * 256 + out[sizeAt + i]!;
      const allOnes = out
        .subarray(sizeAt, sizeAt + sizeLen)
        .every((b, i) => (i === 0 ? b === 0xff >> (sizeLen - 1) : b === 0xff));
      const body = sizeAt + sizeLen;
      const end = allOnes ? to : body + size;
      if (id === SEGMENT && depth === 0) walk(body, end, 1);
      if (id === target) {
        out[sizeAt] = 0xff >> (sizeLen - 1);
        out.fill(0xff, sizeAt + 1, sizeAt + sizeLen);
      }
      at = end;
    }
  };
  walk(0, out.length, 0);
  return out;
}

/** A block's body: track 1, its time in ticks, flags, then `rest` (lace and frames). */
const blockBody = (ticks: number, flags: number, rest: number[]) => [0x81, ...uintBytes(ticks, 2), flags, ...rest];

function xiphLace(frames: Uint8Array[]): number[] {
  const sizes = frames.slice(0, -1).flatMap((f) => {
    const out: number[] = [];
    let n = f.length;
    for (; n >= 255; n -= 255) out.push(255);
    return [...out, n];
  });
  return [frames.length - 1, ...sizes, ...frames.flatMap((f) => [...f])];
}

function ebmlLace(frames: Uint8Array[]): number[] {
  // 4-byte vints: the first size as is, each next one as its difference biased by 2^27 - 1.
  const vint4 = (v: number) => [0x10 | Math.floor(v / 2 ** 24), ...uintBytes(v % 2 ** 24, 3)];
  const sizes = frames
    .slice(0, -1)
    .flatMap((f, i) => vint4(i === 0 ? f.length : f.length - frames[i - 1]!.length + (2 ** 27 - 1)));
  return [frames.length - 1, ...sizes, ...frames.flatMap((f) => [...f])];
}

/** A WebM of one VP9 track at 30 fps (DefaultDuration 33,333,333 ns; none when null) and one cluster of these blocks. */
function builtWebm(blocks: Uint8Array[], frameNs: number | null = 33_333_333): Uint8Array {
  const track = el(
    0xae,
    el(0xd7, [1]),
    el(0x83, [1]),
    el(0x86, [...Buffer.from('V_VP9')]),
    ...(frameNs ? [el(0x23e383, uintBytes(frameNs, 4))] : []),
    el(0xe0, el(0xb0, [64]), el(0xba, [48])),
  );
  return Uint8Array.from([
    ...el(0x1a45dfa3, el(0x4282, [...Buffer.from('webm')])),
    ...el(
      SEGMENT,
      el(0x1549a966, el(0x2ad7b1, uintBytes(1_000_000, 3))),
      el(0x1654ae6b, track),
      el(CLUSTER, el(0xe7, [0]), ...blocks),
    ),
  ]);
}

const summary = (v: WebmVideo | undefined) => v?.blocks.map((b) => [b.timestamp, b.key, b.data.length]);

describe('the WebM reader', () => {
  let file: Buffer;
  let fromFile: WebmVideo;

  beforeAll(() => {
    file = ffmpegWebm(false);
    fromFile = readWebmVideo(file)!;
  });

  it('reads the frames of a VP9 file ffmpeg wrote, each with its time and key flag', () => {
    expect(fromFile.codecId).toBe('V_VP9');
    expect([fromFile.width, fromFile.height]).toEqual([64, 48]);
    expect(fromFile.blocks).toHaveLength(30);
    expect(fromFile.blocks.map((b) => b.timestamp)).toEqual(
      Array.from({ length: 30 }, (_, i) => Math.round(i * 33.333) * 1000),
    );
    expect(fromFile.blocks.filter((b) => b.key).map((b) => fromFile.blocks.indexOf(b))).toEqual([0, 10, 20]);
  });

  it('reads a file written to a pipe (a segment of unknown size) and clusters of unknown size the same', () => {
    const piped = ffmpegWebm(true);
    // ffmpeg could not go back to write the segment's size.
    expect(summary(readWebmVideo(piped))).toEqual(summary(fromFile));
    const live = unknownSizes(file, CLUSTER);
    expect(live).not.toEqual(Uint8Array.from(file));
    const read = readWebmVideo(live)!;
    expect(summary(read)).toEqual(summary(fromFile));
    expect(read.blocks.map((b) => [...b.data])).toEqual(fromFile.blocks.map((b) => [...b.data]));
    // Both at once: the segment and its clusters.
    expect(summary(readWebmVideo(unknownSizes(unknownSizes(file, CLUSTER), SEGMENT)))).toEqual(summary(fromFile));
  });

  it('splits laced blocks (Xiph, EBML, fixed size) into frames timed by the frame duration', () => {
    const real = fromFile.blocks.slice(0, 6).map((b) => b.data);
    // The keyframe is over 255 bytes: its Xiph size takes several bytes.
    expect(real[0]!.length).toBeGreaterThan(255);
    const fixed = [new Uint8Array(7).fill(1), new Uint8Array(7).fill(2)];
    const built = builtWebm([
      el(0xa3, blockBody(0, 0x80 | (1 << 1), xiphLace(real.slice(0, 3)))),
      el(0xa3, blockBody(100, 3 << 1, ebmlLace(real.slice(3, 6)))),
      // A Block in a BlockGroup (its ReferenceBlock makes it not a keyframe), fixed-size lacing.
      el(0xa0, el(0xa1, blockBody(200, 2 << 1, [1, ...fixed.flatMap((f) => [...f])])), el(0xfb, [0xce])),
      // Not laced.
      el(0xa3, blockBody(267, 0, [9, 9, 9])),
    ]);
    const v = readWebmVideo(built)!;
    expect(v.blocks.map((b) => [...b.data])).toEqual([...real, ...fixed, [9, 9, 9]].map((d) => [...d]));
    expect(v.blocks.map((b) => b.timestamp)).toEqual([0, 33333, 66667, 100000, 133333, 166667, 200000, 233333, 267000]);
    expect(v.blocks.map((b) => b.key)).toEqual([true, true, true, false, false, false, false, false, false]);
    // The same with its cluster of unknown size.
    expect(summary(readWebmVideo(unknownSizes(built, CLUSTER)))).toEqual(summary(v));
  });

  it('skips a lace whose sizes do not fit its block, and laces without a frame duration to time them', () => {
    const broken = builtWebm([
      // Xiph sizes of 200 and 200 in a block of 10 bytes of frames.
      el(0xa3, blockBody(0, 0x80 | (1 << 1), [2, 200, 200, ...new Array(10).fill(5)])),
      // Fixed lacing of 3 frames in 10 bytes.
      el(0xa3, blockBody(33, 2 << 1, [2, ...new Array(10).fill(6)])),
      el(0xa3, blockBody(67, 0x80, [7, 7])),
    ]);
    expect(readWebmVideo(broken)!.blocks.map((b) => [...b.data])).toEqual([[7, 7]]);
    const untimed = builtWebm(
      [el(0xa3, blockBody(0, 0x80 | (1 << 1), xiphLace([Uint8Array.of(1), Uint8Array.of(2)])))],
      null,
    );
    expect(readWebmVideo(untimed)!.blocks).toEqual([]);
  });
});
