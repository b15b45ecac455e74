import * as dicomParser from 'dicom-parser';
import type { DataSet } from 'dicom-parser';
import { MediaError } from '../fetch-media';
import type { Samples, Volume, WindowPreset } from './volume';

/*
 * DICOM files into a volume: one file (single or multi-frame) or the files of one series,
 * ordered by ImagePositionPatient along the slice normal (else InstanceNumber). Uncompressed
 * (implicit and explicit VR little endian) and RLE lossless pixel data are read; any other
 * transfer syntax is refused naming it. The samples are kept in their stored type with the
 * series' rescale slope and intercept; files of one series that differ in them are turned into
 * numbers.
 */

const READ: Record<string, string> = {
  '1.2.840.10008.1.2': 'implicit VR little endian',
  '1.2.840.10008.1.2.1': 'explicit VR little endian',
  '1.2.840.10008.1.2.5': 'RLE lossless',
};
const NAMED: Record<string, string> = {
  '1.2.840.10008.1.2.2': 'explicit VR big endian',
  '1.2.840.10008.1.2.1.99': 'deflated explicit VR little endian',
  '1.2.840.10008.1.2.4.50': 'JPEG baseline',
  '1.2.840.10008.1.2.4.51': 'JPEG extended',
  '1.2.840.10008.1.2.4.57': 'JPEG lossless',
  '1.2.840.10008.1.2.4.70': 'JPEG lossless, first-order prediction',
  '1.2.840.10008.1.2.4.80': 'JPEG-LS lossless',
  '1.2.840.10008.1.2.4.81': 'JPEG-LS near-lossless',
  '1.2.840.10008.1.2.4.90': 'JPEG 2000 lossless',
  '1.2.840.10008.1.2.4.91': 'JPEG 2000',
};

/** The tags shown to those who may read the task: about the patient and the study. */
const SHOWN_TAGS: [string, string][] = [
  ['x00100010', 'Patient name'],
  ['x00100020', 'Patient ID'],
  ['x00100030', 'Birth date'],
  ['x00100040', 'Sex'],
  ['x00081030', 'Study'],
  ['x00080020', 'Study date'],
  ['x0008103e', 'Series'],
  ['x00080060', 'Modality'],
  ['x00080080', 'Institution'],
];

interface Slice {
  /** The frame's samples as stored (a view of the file where it is aligned). */
  pixels: Int8Array | Uint8Array | Int16Array | Uint16Array;
  slope: number;
  intercept: number;
  position: number[] | undefined;
  instance: number;
}

function numbers(ds: DataSet, tag: string): number[] | undefined {
  const text = ds.string(tag);
  if (!text) return undefined;
  const list = text.split('\\').map(Number);
  return list.every(Number.isFinite) ? list : undefined;
}

/** Decodes one PackBits segment of an RLE frame into `out`, each `stride`-th byte from `start`. */
function packBits(src: Uint8Array, from: number, to: number, out: Uint8Array, start: number, stride: number) {
  let o = start;
  let i = from;
  while (i < to && o < out.length) {
    const n = (src[i++]! << 24) >> 24;
    if (n >= 0) {
      for (let k = 0; k <= n && i < to; k++, o += stride) out[o] = src[i++]!;
    } else if (n !== -128) {
      const v = src[i++]!;
      for (let k = 0; k < 1 - n; k++, o += stride) out[o] = v;
    }
  }
}

/** An RLE frame (DICOM PS3.5 annex G) as little-endian samples of `bytes` each. */
function decodeRle(frame: Uint8Array, samples: number, bytes: number): Uint8Array {
  const head = new DataView(frame.buffer, frame.byteOffset, 64);
  const segments = head.getUint32(0, true);
  if (segments !== bytes) throw new MediaError(`The RLE pixel data has ${segments} segments; ${bytes} were expected.`);
  const out = new Uint8Array(samples * bytes);
  for (let s = 0; s < segments; s++) {
    const from = head.getUint32(4 + s * 4, true);
    const to = s + 1 < segments ? head.getUint32(8 + s * 4, true) : frame.length;
    // Segment 0 holds the most significant bytes.
    packBits(frame, from, to, out, bytes - 1 - s, bytes);
  }
  return out;
}

interface Parsed {
  ds: DataSet;
  name: string;
}

function parse(buffer: ArrayBuffer, name: string): Parsed {
  try {
    return { ds: dicomParser.parseDicom(new Uint8Array(buffer)), name };
  } catch {
    throw new MediaError(`${name} is not a DICOM file the editor can read.`);
  }
}

/** The slices of one file: its frames, as numbers after rescale. */
function slicesOf({ ds, name }: Parsed, rows: number, cols: number): Slice[] {
  const syntax = (ds.string('x00020010') ?? '1.2.840.10008.1.2').replace(/\0/g, '').trim();
  if (!READ[syntax]) {
    const known = NAMED[syntax];
    throw new MediaError(
      `${name} uses the transfer syntax ${syntax}${known ? ` (${known})` : ''}, which the editor does not read; ` +
        'uncompressed little endian and RLE lossless are read.',
    );
  }
  const pixel = ds.elements.x7fe00010;
  if (!pixel) throw new MediaError(`${name} has no pixel data.`);
  if ((ds.uint16('x00280002') ?? 1) !== 1) throw new MediaError(`${name} is not a greyscale image.`);
  const bits = ds.uint16('x00280100') ?? 16;
  if (bits !== 8 && bits !== 16) throw new MediaError(`${name} has ${bits}-bit samples; 8 and 16 are read.`);
  const signed = ds.uint16('x00280103') === 1;
  const slope = ds.floatString('x00281053') ?? 1;
  const intercept = ds.floatString('x00281052') ?? 0;
  const frames = Math.max(1, Number(ds.intString('x00280008') ?? 1) || 1);
  const bytes = bits / 8;
  const count = rows * cols;
  const position = numbers(ds, 'x00200032');
  const instance = Number(ds.intString('x00200013') ?? 0) || 0;
  const out: Slice[] = [];
  for (let f = 0; f < frames; f++) {
    let raw: Uint8Array;
    if (syntax === '1.2.840.10008.1.2.5') {
      const fragments = pixel.fragments ?? [];
      if (!pixel.encapsulatedPixelData || !fragments.length) {
        throw new MediaError(`${name} has RLE pixel data without fragments.`);
      }
      // With a table of frame offsets, the frame it names; else one frame is every fragment, or
      // each frame one fragment.
      const frame = pixel.basicOffsetTable?.length
        ? dicomParser.readEncapsulatedImageFrame(ds, pixel, f)
        : frames === 1
          ? dicomParser.readEncapsulatedPixelDataFromFragments(ds, pixel, 0, fragments.length)
          : dicomParser.readEncapsulatedPixelDataFromFragments(ds, pixel, f, 1);
      raw = decodeRle(frame, count, bytes);
    } else {
      const at = pixel.dataOffset + f * count * bytes;
      if (at + count * bytes > ds.byteArray.length)
        throw new MediaError(`${name} has less pixel data than its size needs.`);
      raw = ds.byteArray.subarray(at, at + count * bytes);
    }
    // Little endian, as this machine: a 16-bit view needs an even offset, else a copy.
    const even = bytes === 1 || raw.byteOffset % 2 === 0 ? raw : raw.slice();
    const pixels =
      bytes === 1
        ? signed
          ? new Int8Array(even.buffer, even.byteOffset, count)
          : even
        : signed
          ? new Int16Array(even.buffer, even.byteOffset, count)
          : new Uint16Array(even.buffer, even.byteOffset, count);
    out.push({
      pixels,
      slope,
      intercept,
      position: frames === 1 ? position : undefined,
      instance: instance * 10000 + f,
    });
  }
  return out;
}

/** The window values a file declares (the first of several), as presets. */
function ownWindows(ds: DataSet): WindowPreset[] {
  const centres = numbers(ds, 'x00281050') ?? [];
  const widths = numbers(ds, 'x00281051') ?? [];
  return centres.flatMap((c, i) => {
    const w = widths[i];
    return w && w > 0 ? [{ name: i === 0 ? 'From the file' : `From the file (${i + 1})`, center: c, width: w }] : [];
  });
}

/**
 * The slices in one array: of their stored type when they share it and their rescale, else as
 * numbers after each one's rescale.
 */
function joined(slices: Slice[], count: number): { data: Samples; slope: number; intercept: number } {
  const first = slices[0]!;
  const same = slices.every(
    (s) =>
      s.pixels.constructor === first.pixels.constructor && s.slope === first.slope && s.intercept === first.intercept,
  );
  if (same) {
    const Type = first.pixels.constructor as new (n: number) => Int8Array | Uint8Array | Int16Array | Uint16Array;
    const data = new Type(count * slices.length);
    slices.forEach((s, i) => data.set(s.pixels, i * count));
    return { data, slope: first.slope, intercept: first.intercept };
  }
  const data = new Float32Array(count * slices.length);
  slices.forEach((s, i) => {
    const base = i * count;
    for (let k = 0; k < count; k++) data[base + k] = s.pixels[k]! * s.slope + s.intercept;
  });
  return { data, slope: 1, intercept: 0 };
}

/** Opens DICOM files (one, or a series) as one volume. */
export function openDicom(files: { buffer: ArrayBuffer; name: string }[]): Volume {
  const parsed = files.map((f) => parse(f.buffer, f.name));
  const first = parsed[0];
  if (!first) throw new MediaError('The series has no files.');
  const series = first.ds.string('x0020000e');
  const rows = first.ds.uint16('x00280010') ?? 0;
  const cols = first.ds.uint16('x00280011') ?? 0;
  if (!rows || !cols) throw new MediaError(`${first.name} has no image size (Rows, Columns).`);
  for (const p of parsed.slice(1)) {
    if (p.ds.string('x0020000e') !== series) {
      throw new MediaError(`${p.name} belongs to another series than ${first.name}: a volume is one series.`);
    }
    const [r, c] = [p.ds.uint16('x00280010'), p.ds.uint16('x00280011')];
    if (r !== rows || c !== cols) {
      throw new MediaError(
        `${p.name} is ${c ?? '?'}x${r ?? '?'} pixels, ${first.name} ${cols}x${rows}: a volume's slices are one size.`,
      );
    }
  }
  const slices = parsed.flatMap((p) => slicesOf(p, rows, cols));
  // Along the slice normal (the cross product of the orientation's row and column directions).
  const o = numbers(first.ds, 'x00200037');
  const normal =
    o && o.length === 6
      ? [o[1]! * o[5]! - o[2]! * o[4]!, o[2]! * o[3]! - o[0]! * o[5]!, o[0]! * o[4]! - o[1]! * o[3]!]
      : undefined;
  const along = (s: Slice) =>
    normal && s.position ? s.position.reduce((a, v, i) => a + v * normal[i]!, 0) : undefined;
  const byPosition = slices.every((s) => along(s) !== undefined);
  slices.sort((a, b) => (byPosition ? along(a)! - along(b)! : a.instance - b.instance));
  const { data, slope, intercept } = joined(slices, rows * cols);
  const spacing = numbers(first.ds, 'x00280030');
  const zs = byPosition && slices.length > 1 ? Math.abs(along(slices[1]!)! - along(slices[0]!)!) : undefined;
  const thickness = first.ds.floatString('x00180050');
  const tags = SHOWN_TAGS.flatMap(([tag, label]) => {
    const value = first.ds.string(tag)?.replace(/\^/g, ' ').trim();
    return value ? [{ label, value }] : [];
  });
  return {
    width: cols,
    height: rows,
    depth: slices.length,
    data,
    slope,
    intercept,
    spacing: [spacing?.[1] ?? 1, spacing?.[0] ?? 1, zs || thickness || 1],
    windows: ownWindows(first.ds),
    tags,
  };
}
