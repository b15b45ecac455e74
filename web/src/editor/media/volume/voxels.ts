import { NrrdError, nrrdSamples, parseNrrdHeader, segmentationHeader } from '../../../../../src/shared/nrrd';
import type { PaintedLayer } from '../../core/surface';
import { rgbOf } from '../../tools/brush/layer';
import { MediaError } from '../fetch-media';
import { gunzip, planeVoxels, type Plane } from './volume';

/** A class of the voxel layer: its number (the `medical-brush` tool's schemaId) and the colour it is shown in. */
export interface VoxelClass {
  value: number;
  color: string;
}

/**
 * The task's voxel layer (the `medical-brush` tool): one class number per voxel of the volume,
 * 0 for none, x fastest, then y, then the slice. The editor paints one axial slice at a time on
 * a brush layer (a canvas in the classes' colours) and copies it back here; the layer is saved
 * as one gzip-encoded `.seg.nrrd` the volume's size. A byte a voxel while every class number
 * fits one (as it is saved), else two.
 */
export class VoxelLayer implements PaintedLayer {
  readonly field = 'medicalBrushDataUrl' as const;
  voxels: Uint8Array | Uint16Array;
  dirty = false;
  private readonly byColor = new Map<number, number>();
  private readonly byValue = new Map<number, number>();

  constructor(
    readonly width: number,
    readonly height: number,
    readonly depth: number,
    classes: readonly VoxelClass[],
    readonly spacing?: readonly number[],
  ) {
    const bytes = classes.every((c) => c.value < 256);
    this.voxels = bytes ? new Uint8Array(width * height * depth) : new Uint16Array(width * height * depth);
    for (const c of classes) {
      const packed = packed32(c.color);
      this.byColor.set(packed & 0xffffff, c.value);
      this.byValue.set(c.value, packed);
    }
  }

  /** Reads a stored `.seg.nrrd` into the layer; a file of another size is refused in words. */
  async load(buffer: ArrayBuffer): Promise<void> {
    const bytes = new Uint8Array(buffer);
    let samples: ArrayLike<number>;
    try {
      const header = parseNrrdHeader(bytes);
      const [x, y, z = 1] = header.sizes;
      if (x !== this.width || y !== this.height || z !== this.depth || header.sizes.length > 3) {
        throw new MediaError(
          `The saved voxel layer is ${header.sizes.join('x')} voxels; the volume is ` +
            `${this.width}x${this.height}x${this.depth}. It is not shown, and stays saved until you paint.`,
        );
      }
      const body = bytes.subarray(header.dataOffset);
      const raw = header.encoding === 'gzip' ? await gunzip(body).catch(() => undefined) : body;
      if (!raw) throw new MediaError('The saved voxel layer holds gzip data that does not unpack.');
      samples = nrrdSamples(header, raw);
    } catch (err) {
      if (err instanceof NrrdError) throw new MediaError(`The saved voxel layer ${err.message}.`);
      throw err;
    }
    let max = 0;
    for (let i = 0; i < this.voxels.length; i++) max = Math.max(max, samples[i]! | 0);
    // A saved class number above 255 (a class since removed from the ontology) is kept as it is.
    if (max > 255 && this.voxels instanceof Uint8Array) this.voxels = new Uint16Array(this.voxels.length);
    for (let i = 0; i < this.voxels.length; i++) this.voxels[i] = Math.max(0, Math.min(65535, samples[i]! | 0));
    this.dirty = false;
  }

  /** Draws slice `index` of `plane` in the classes' colours (opaque; 0 transparent) into `out`, its shown size. */
  drawSlice(plane: Plane, index: number, out: ImageData): void {
    const px = new Uint32Array(out.data.buffer);
    planeVoxels(this, plane, index, out.height, (i, at) => {
      const v = this.voxels[at]!;
      px[i] = v ? (this.byValue.get(v) ?? 0xff808080) : 0;
    });
  }

  /**
   * Takes slice `z` back from its painted picture: each opaque pixel becomes its colour's class,
   * a transparent one 0. A colour no class has (none is painted) leaves the voxel as it was.
   * Answers whether a voxel changed.
   */
  takeSlice(z: number, painted: ImageData): boolean {
    const px = new Uint32Array(painted.data.buffer);
    const base = z * this.width * this.height;
    let changed = false;
    for (let i = 0; i < px.length; i++) {
      const p = px[i]!;
      const v = p >>> 24 === 0 ? 0 : this.byColor.get(p & 0xffffff);
      if (v === undefined || this.voxels[base + i] === v) continue;
      this.voxels[base + i] = v;
      changed = true;
    }
    if (changed) this.dirty = true;
    return changed;
  }

  /**
   * Fill between slices: for each class, the slices between two slices that hold it get the shape
   * that blends the two (shape-based interpolation: a voxel is in when the distances to the two
   * outlines, weighted by how near each slice is, say it is inside). Slices that already hold the
   * class are left as they are, and only empty voxels are filled. Answers the slices changed.
   */
  fillBetween(): number[] {
    const { width: w, height: h, depth: d } = this;
    const n = w * h;
    const changed = new Set<number>();
    const values = new Set<number>();
    for (const v of this.voxels) if (v) values.add(v);
    for (const value of values) {
      const holds: number[] = [];
      for (let z = 0; z < d; z++) {
        const base = z * n;
        for (let i = 0; i < n; i++)
          if (this.voxels[base + i] === value) {
            holds.push(z);
            break;
          }
      }
      for (let k = 0; k + 1 < holds.length; k++) {
        const [a, b] = [holds[k]!, holds[k + 1]!];
        if (b - a < 2) continue;
        const da = signedDistance(this.voxels, a * n, w, h, value);
        const db = signedDistance(this.voxels, b * n, w, h, value);
        for (let z = a + 1; z < b; z++) {
          const t = (z - a) / (b - a);
          const base = z * n;
          for (let i = 0; i < n; i++) {
            if (this.voxels[base + i] !== 0) continue;
            if ((1 - t) * da[i]! + t * db[i]! <= 0) {
              this.voxels[base + i] = value;
              changed.add(z);
            }
          }
        }
      }
    }
    if (changed.size) this.dirty = true;
    return [...changed].sort((x, y) => x - y);
  }

  empty(): boolean {
    // Four bytes at a time: a save asks it of tens of millions of voxels.
    const v = this.voxels;
    const words = Math.floor(v.byteLength / 4);
    const w = new Uint32Array(v.buffer, v.byteOffset, words);
    for (let i = 0; i < words; i++) if (w[i]) return false;
    for (let i = (words * 4) / v.BYTES_PER_ELEMENT; i < v.length; i++) if (v[i]) return false;
    return true;
  }

  /**
   * The layer as a gzip-encoded `.seg.nrrd`: unsigned bytes when every class number fits one,
   * else shorts. The voxels are compressed where they are, a slice at a time: a Blob of them
   * would first copy them all, and reading it back costs several times the compression. A stroke
   * taken while it runs may be half in the file; it leaves the layer dirty, so the next save
   * takes it whole.
   */
  async toBlob(): Promise<Blob> {
    let max = 0;
    if (this.voxels instanceof Uint16Array) for (const v of this.voxels) if (v > max) max = v;
    const data =
      this.voxels instanceof Uint8Array
        ? this.voxels
        : max < 256
          ? Uint8Array.from(this.voxels)
          : new Uint8Array(this.voxels.buffer, this.voxels.byteOffset, this.voxels.byteLength);
    const head = segmentationHeader(
      [this.width, this.height, this.depth],
      this.spacing,
      max < 256 ? 'uint8' : 'uint16',
    );
    const slice = (data.length / this.depth) | 0 || data.length;
    let at = 0;
    const voxels = new ReadableStream<BufferSource>({
      pull(out) {
        if (at >= data.length) return out.close();
        // The voxels' buffer is an ArrayBuffer (never shared).
        out.enqueue(data.subarray(at, at + slice) as Uint8Array<ArrayBuffer>);
        at += slice;
      },
    });
    const zipped = await new Response(voxels.pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
    return new Blob([head, zipped], { type: 'application/octet-stream' });
  }
}

/** `#rrggbb` as the little-endian RGBA word ImageData holds, opaque. */
function packed32(color: string): number {
  const [r, g, b] = rgbOf(color);
  return (0xff000000 | (b << 16) | (g << 8) | r) >>> 0;
}

/**
 * The signed chamfer distance (3-4 weights, in thirds of a voxel) of every voxel of one slice to
 * the outline of the voxels holding `value`: negative inside, positive outside.
 */
function signedDistance(
  voxels: Uint8Array | Uint16Array,
  base: number,
  w: number,
  h: number,
  value: number,
): Float32Array {
  const inside = (i: number) => voxels[base + i] === value;
  const out = chamfer(w, h, (i) => inside(i));
  const inn = chamfer(w, h, (i) => !inside(i));
  const d = new Float32Array(w * h);
  for (let i = 0; i < d.length; i++) d[i] = inside(i) ? -inn[i]! : out[i]!;
  return d;
}

/** Distance (in thirds) of every pixel to the nearest pixel where `seed` holds; 0 on a seed. */
function chamfer(w: number, h: number, seed: (i: number) => boolean): Float32Array {
  const far = 1e9;
  const d = new Float32Array(w * h);
  for (let i = 0; i < d.length; i++) d[i] = seed(i) ? 0 : far;
  const at = (x: number, y: number) => (x < 0 || y < 0 || x >= w || y >= h ? far : d[y * w + x]!);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      d[i] = Math.min(d[i]!, at(x - 1, y) + 3, at(x, y - 1) + 3, at(x - 1, y - 1) + 4, at(x + 1, y - 1) + 4);
    }
  for (let y = h - 1; y >= 0; y--)
    for (let x = w - 1; x >= 0; x--) {
      const i = y * w + x;
      d[i] = Math.min(d[i]!, at(x + 1, y) + 3, at(x, y + 1) + 3, at(x + 1, y + 1) + 4, at(x - 1, y + 1) + 4);
    }
  return d;
}
