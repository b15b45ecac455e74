/*
 * Masks as bytes: polygons filled into a width x height raster (row-major, one byte per pixel)
 * and COCO's run-length encoding of a raster. A pixel belongs to a polygon when its centre
 * (x + 0.5, y + 0.5) lies inside it by the even-odd rule, so a zone's holes (more rings in the
 * same fill) come out empty, and two touching polygons never share a pixel.
 */

export type Ring = readonly (readonly [number, number])[];

export interface Raster {
  width: number;
  height: number;
  /** Row-major, `width * height` bytes. */
  data: Uint8Array;
}

export function emptyRaster(width: number, height: number): Raster {
  return { width, height, data: new Uint8Array(width * height) };
}

/**
 * Paints `value` into every pixel inside the rings taken together (even-odd: a ring inside
 * another is a hole). Scanline fill: per pixel row, the crossings of the row's centre line with
 * every edge, sorted, filled pairwise.
 */
export function fillRings(raster: Raster, rings: readonly Ring[], value: number): void {
  const { width, height, data } = raster;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const ring of rings) {
    for (const [, y] of ring) {
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  }
  if (!Number.isFinite(minY)) return;
  const fromRow = Math.max(0, Math.floor(minY - 0.5));
  const toRow = Math.min(height - 1, Math.ceil(maxY - 0.5));
  const crossings: number[] = [];
  for (let row = fromRow; row <= toRow; row++) {
    const cy = row + 0.5;
    crossings.length = 0;
    for (const ring of rings) {
      const n = ring.length;
      for (let i = 0; i < n; i++) {
        const [x1, y1] = ring[i] as readonly [number, number];
        const [x2, y2] = ring[(i + 1) % n] as readonly [number, number];
        // Half-open in y so a vertex on the line counts once.
        if (y1 <= cy === y2 <= cy) continue;
        crossings.push(x1 + ((cy - y1) / (y2 - y1)) * (x2 - x1));
      }
    }
    crossings.sort((a, b) => a - b);
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      // Pixels whose centre x + 0.5 lies in [a, b).
      const from = Math.max(0, Math.ceil((crossings[k] as number) - 0.5));
      const to = Math.min(width - 1, Math.ceil((crossings[k + 1] as number) - 0.5) - 1);
      if (to >= from) data.fill(value, row * width + from, row * width + to + 1);
    }
  }
}

/** COCO's uncompressed RLE of the pixels equal to `value`: column-major runs, starting with zeros. */
export interface Rle {
  counts: number[];
  size: [number, number];
}

/**
 * Run lengths over the raster read column by column (COCO's Fortran order), alternating
 * pixels not equal to `value` and equal to it, the first run being "not equal" (possibly 0).
 */
export function encodeRle(raster: Raster, value = 1): Rle {
  const { width, height, data } = raster;
  // The hot loop of large masks (12 M pixels at 4000 x 3000), read in memory order: a run
  // boundary in column-major order is a pixel that differs from the one above it (or, on the
  // top row, from the bottom of the column before). Those few positions, sorted, are the runs.
  let changes = new Int32Array(1024);
  let n = 0;
  const add = (position: number) => {
    if (n === changes.length) {
      const grown = new Int32Array(n * 2);
      grown.set(changes);
      changes = grown;
    }
    changes[n++] = position;
  };
  for (let x = 0; x < width; x++) {
    const here = data[x] === value;
    const before = x === 0 ? false : data[(height - 1) * width + x - 1] === value;
    if (here !== before) add(x * height);
  }
  for (let y = 1; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (data[row + x] === data[row - width + x]) continue;
      if ((data[row + x] === value) !== (data[row - width + x] === value)) add(x * height + y);
    }
  }
  // Within a column the boundaries were met top to bottom: a stable counting sort by column puts
  // them in column-major order in linear time (a comparison sort of millions of runs is not).
  const perColumn = new Int32Array(width + 1);
  for (let i = 0; i < n; i++) perColumn[Math.floor((changes[i] as number) / height) + 1]!++;
  for (let x = 1; x <= width; x++) perColumn[x]! += perColumn[x - 1] as number;
  const sorted = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const position = changes[i] as number;
    sorted[perColumn[Math.floor(position / height)]!++] = position;
  }
  const counts = new Array<number>(n + 1);
  let start = 0;
  for (let i = 0; i < n; i++) {
    const position = sorted[i] as number;
    counts[i] = position - start;
    start = position;
  }
  counts[n] = width * height - start;
  return { counts, size: [height, width] };
}

/**
 * Run lengths over a `columns` x `rows` grid, alternating cells where `hit` is false and true,
 * starting with a (possibly empty) false run; read down each column when `columnMajor`, else
 * along each row.
 */
export function runLengths(
  columns: number,
  rows: number,
  hit: (column: number, row: number) => boolean,
  columnMajor: boolean,
): number[] {
  const counts: number[] = [];
  let inside = false;
  let run = 0;
  const outer = columnMajor ? columns : rows;
  const inner = columnMajor ? rows : columns;
  for (let a = 0; a < outer; a++) {
    for (let b = 0; b < inner; b++) {
      const now = columnMajor ? hit(a, b) : hit(b, a);
      if (now !== inside) {
        counts.push(run);
        run = 0;
        inside = now;
      }
      run++;
    }
  }
  counts.push(run);
  return counts;
}

/** The pixels of an RLE set to 1 in a new raster (the importer's side). */
export function decodeRle(rle: Rle): Raster {
  const [height, width] = rle.size;
  const raster = emptyRaster(width, height);
  let pos = 0;
  rle.counts.forEach((count, k) => {
    if (k % 2 === 1) {
      for (let p = pos; p < pos + count; p++) {
        const x = Math.floor(p / height);
        const y = p - x * height;
        raster.data[y * width + x] = 1;
      }
    }
    pos += count;
  });
  return raster;
}

/** How many pixels hold `value`. */
export function countPixels(raster: Raster, value = 1): number {
  let n = 0;
  for (const v of raster.data) if (v === value) n++;
  return n;
}

/** The tight box [x, y, w, h] of the pixels equal to `value`, or undefined when none. */
export function pixelBox(raster: Raster, value = 1): [number, number, number, number] | undefined {
  const { width, height, data } = raster;
  let minX = width;
  let minY = height;
  let maxX = -1;
  let maxY = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x] !== value) continue;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  return maxX < 0 ? undefined : [minX, minY, maxX - minX + 1, maxY - minY + 1];
}
