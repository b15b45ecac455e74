import { NrrdError, nrrdSamples, parseNrrdHeader } from '../../../../../src/shared/nrrd';
import { MediaError } from '../fetch-media';

/*
 * A volume: voxels x fastest, then y, then z (the slice), kept as the file stores its samples
 * (16-bit integers for CT: half the memory of numbers), a sample's value being
 * `sample * slope + intercept` (Hounsfield units for CT). A slice is drawn through a window
 * (centre and width): values below it black, above it white; the rescale and the window are
 * applied per slice as it is drawn.
 */

/** Samples as a file stores them: integers of 8 or 16 bits, or numbers. */
export type Samples = Int8Array | Uint8Array | Int16Array | Uint16Array | Float32Array;

export interface WindowPreset {
  name: string;
  center: number;
  width: number;
}

export interface Volume {
  width: number;
  height: number;
  depth: number;
  data: Samples;
  /** A sample's value is `sample * slope + intercept`. */
  slope: number;
  intercept: number;
  /** Voxel spacing along x, y, z (mm), 1 where unknown. */
  spacing: [number, number, number];
  /** The file's own window values. */
  windows: WindowPreset[];
  /** The patient and study tags, for those who may read the task. */
  tags: { label: string; value: string }[];
}

/** The usual CT windows. */
export const CT_PRESETS: WindowPreset[] = [
  { name: 'Soft tissue', center: 40, width: 400 },
  { name: 'Lung', center: -600, width: 1500 },
  { name: 'Bone', center: 400, width: 1800 },
  { name: 'Brain', center: 40, width: 80 },
];

/** The window a volume opens with: its file's own, else its values' whole range. */
export function firstWindow(v: Volume): WindowPreset {
  const own = v.windows[0];
  if (own) return own;
  let lo = Infinity;
  let hi = -Infinity;
  // Every 7th voxel is enough to find the range.
  for (let i = 0; i < v.data.length; i += 7) {
    const x = v.data[i]! * v.slope + v.intercept;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (!Number.isFinite(lo)) return { name: 'Full range', center: 0, width: 1 };
  return { name: 'Full range', center: (lo + hi) / 2, width: Math.max(1, hi - lo) };
}

export type Plane = 'axial' | 'coronal' | 'sagittal';

/** The size of a plane's slices and how many there are. */
export function planeSize(v: Volume, plane: Plane): { width: number; height: number; count: number } {
  if (plane === 'coronal') return { width: v.width, height: v.depth, count: v.height };
  if (plane === 'sagittal') return { width: v.height, height: v.depth, count: v.width };
  return { width: v.width, height: v.height, count: v.depth };
}

/** The planes a volume can be looked at in: all three when it has more than one slice. */
export function planesOf(v: Volume): Plane[] {
  return v.depth > 1 ? ['axial', 'coronal', 'sagittal'] : ['axial'];
}

/**
 * The size a plane's slice is shown at: a coronal or sagittal slice's rows (the volume's slices)
 * stretched by the slice spacing over the in-plane spacing, so the anatomy keeps its proportions
 * (at most 8 rows a slice).
 */
export function shownSize(v: Volume, plane: Plane): { width: number; height: number } {
  const { width, height } = planeSize(v, plane);
  if (plane === 'axial') return { width, height };
  const across = plane === 'coronal' ? v.spacing[0] : v.spacing[1];
  const stretch = Math.max(1, Math.min(8, v.spacing[2] / (across || 1)));
  return { width, height: Math.round(height * stretch) };
}

/**
 * The voxel of the volume behind each pixel of slice `index` of `plane` shown at `out` rows:
 * calls `each(pixel, voxel)` row by row. Coronal and sagittal: the top of the picture is the
 * last slice.
 */
export function planeVoxels(
  v: Volume | { width: number; height: number; depth: number },
  plane: Plane,
  index: number,
  rows: number,
  each: (pixel: number, voxel: number) => void,
): void {
  const { width: vw, height: vh, depth: vd } = v;
  if (plane === 'axial') {
    const base = index * vw * vh;
    for (let i = 0; i < vw * vh; i++) each(i, base + i);
    return;
  }
  const w = plane === 'coronal' ? vw : vh;
  for (let row = 0; row < rows; row++) {
    const z = vd - 1 - Math.min(vd - 1, Math.floor((row * vd) / rows));
    for (let col = 0; col < w; col++) {
      const at = plane === 'coronal' ? z * vw * vh + index * vw + col : z * vw * vh + col * vw + index;
      each(row * w + col, at);
    }
  }
}

/** The last table of greys made: scrolling through slices under one window reuses it. */
let greys: { key: string; table: Uint32Array } | undefined;

/**
 * The opaque grey of every sample an integer type can hold (offset so the lowest is at 0), or
 * undefined for numbers (float samples are worked out one by one).
 */
function greyTable(data: Samples, toGrey: (sample: number) => number, key: string) {
  const [count, offset] =
    data instanceof Int16Array
      ? [65536, 32768]
      : data instanceof Uint16Array
        ? [65536, 0]
        : data instanceof Int8Array
          ? [256, 128]
          : data instanceof Uint8Array
            ? [256, 0]
            : [0, 0];
  if (!count) return undefined;
  const full = `${count}:${offset}:${key}`;
  if (greys?.key !== full) {
    const table = new Uint32Array(count);
    for (let k = 0; k < count; k++) table[k] = toGrey(k - offset);
    greys = { key: full, table };
  }
  return { table: greys.table, offset };
}

/** Draws slice `index` of `plane` through the window into `out` (RGBA, the plane's shown size). */
export function renderSlice(v: Volume, plane: Plane, index: number, win: WindowPreset, out: ImageData): void {
  const px = new Uint32Array(out.data.buffer);
  const low = win.center - win.width / 2;
  const scale = 255 / Math.max(1e-6, win.width);
  const { slope, intercept, data } = v;
  const toGrey = (sample: number) => {
    const c = Math.max(0, Math.min(255, Math.round((sample * slope + intercept - low) * scale)));
    return (0xff000000 | (c << 16) | (c << 8) | c) >>> 0;
  };
  const lookup = greyTable(data, toGrey, `${slope}:${intercept}:${low}:${scale}`);
  if (lookup && plane === 'axial') {
    const { table, offset } = lookup;
    const base = index * v.width * v.height;
    for (let i = 0; i < px.length; i++) px[i] = table[data[base + i]! + offset]!;
    return;
  }
  planeVoxels(v, plane, index, out.height, (i, at) => {
    px[i] = lookup ? lookup.table[data[at]! + lookup.offset]! : toGrey(data[at]!);
  });
}

/** NRRD samples kept in their own type where it is an integer of 8 or 16 bits, else as numbers. */
function storedSamples(type: string, samples: ArrayLike<number>): Samples {
  if (type === 'int16') return Int16Array.from(samples);
  if (type === 'uint16') return Uint16Array.from(samples);
  if (type === 'int8') return Int8Array.from(samples);
  if (type === 'uint8') return Uint8Array.from(samples);
  return Float32Array.from(samples);
}

export async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Opens an NRRD file (raw or gzip, attached data) of 2 or 3 dimensions as a volume. */
export async function openNrrd(buffer: ArrayBuffer, name: string): Promise<Volume> {
  const bytes = new Uint8Array(buffer);
  try {
    const header = parseNrrdHeader(bytes);
    if (header.sizes.length < 2 || header.sizes.length > 3) {
      throw new MediaError(`${name} has ${header.sizes.length} dimensions; a volume has 2 or 3.`);
    }
    const body = bytes.subarray(header.dataOffset);
    const raw = header.encoding === 'gzip' ? await gunzip(body).catch(() => undefined) : body;
    if (!raw) throw new MediaError(`${name} holds gzip data that does not unpack.`);
    const samples = nrrdSamples(header, raw);
    const [width, height, depth = 1] = header.sizes as [number, number, number?];
    const s = header.spacings;
    return {
      width,
      height,
      depth,
      data: storedSamples(header.type, samples),
      slope: 1,
      intercept: 0,
      spacing: [s[0] ?? 1, s[1] ?? 1, s[2] ?? 1],
      windows: [],
      tags: [],
    };
  } catch (err) {
    if (err instanceof NrrdError) throw new MediaError(`${name} ${err.message}.`);
    throw err;
  }
}
