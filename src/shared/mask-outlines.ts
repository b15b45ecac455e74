/*
 * A mask's pixels as segmentation zones: the exact outlines of the pixel set along pixel edges,
 * outer rings with the holes inside them. Each boundary edge runs with the mask on its right
 * (clockwise on screen for an outer ring, anticlockwise for a hole). Pixels that touch only by a
 * corner belong to different outlines (at such a vertex the walk turns right); an outline that
 * comes back to a vertex it passed is split there, so no ring touches itself (the API refuses
 * those). Straight runs are merged into one side.
 *
 * The cost is one pass over the pixels of the area looked at (typed arrays, no allocation per
 * pixel) and one step per boundary edge: a 4000 x 3000 mask is traced in tens of milliseconds.
 */

type P = [number, number];

export interface TracedZone {
  region: P[];
  holes: P[][];
}

/** The boundary edges leaving a vertex, one bit per direction. */
const EAST = 1;
const SOUTH = 2;
const WEST = 4;
const NORTH = 8;
/** By direction bit: its unit step, and its right and left turns (y grows downwards). */
const STEP_X = [0, 1, 0, 0, -1, 0, 0, 0, 0];
const STEP_Y = [0, 0, 1, 0, 0, 0, 0, 0, -1];
const RIGHT = [0, SOUTH, WEST, 0, NORTH, 0, 0, 0, EAST];
const LEFT = [0, NORTH, EAST, 0, SOUTH, 0, 0, 0, WEST];

function signedArea(ring: readonly P[]): number {
  let twice = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x1, y1] = ring[i] as P;
    const [x2, y2] = ring[(i + 1) % ring.length] as P;
    twice += x1 * y2 - x2 * y1;
  }
  return twice / 2;
}

function inside(point: P, ring: readonly P[]): boolean {
  let hit = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as P;
    const [xj, yj] = ring[j] as P;
    if (yi > point[1] !== yj > point[1] && point[0] < ((xj - xi) * (point[1] - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

/** Calls `each` with every stretch of the runs `a` (from, to, from, to, ... in order) not in the runs `b`. */
function without(a: number[], b: number[], each: (from: number, to: number) => void): void {
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let from = a[i] as number;
    const to = a[i + 1] as number;
    while (j < b.length && (b[j + 1] as number) <= from) j += 2;
    let k = j;
    while (k < b.length && (b[k] as number) < to) {
      if ((b[k] as number) > from) each(from, b[k] as number);
      from = Math.max(from, b[k + 1] as number);
      k += 2;
    }
    if (from < to) each(from, to);
  }
}

/** An area of the mask in whole pixels: x, y, width, height. */
export type MaskArea = [number, number, number, number];

/**
 * The zones of the pixels of `pixels` (one byte a pixel, row by row, `width` wide; not 0 is in)
 * that lie in `area` (the whole mask unless given; pixels outside it count as out).
 */
export function traceZones(
  width: number,
  height: number,
  pixels: Uint8Array,
  area: MaskArea = [0, 0, width, height],
): TracedZone[] {
  const x0 = Math.max(0, Math.floor(area[0]));
  const y0 = Math.max(0, Math.floor(area[1]));
  const w = Math.min(width, Math.floor(area[0] + area[2])) - x0;
  const h = Math.min(height, Math.floor(area[1] + area[3])) - y0;
  if (w <= 0 || h <= 0) return [];
  // Vertices of the area's pixel grid, row by row: the boundary edges leaving each. Rows are
  // read as runs of pixels in; an edge along a row line lies where the runs of the rows above
  // and below it differ, an edge across one at the ends of a run.
  const vw = w + 1;
  const outs = new Uint8Array(vw * (h + 1));
  const mark = (v: number, dir: number) => (outs[v] = (outs[v] as number) | dir);
  // Where each eastward stretch of edges begins: each ring has one (its top), so every walk starts at one.
  const starts: number[] = [];
  let above: number[] = [];
  for (let y = 0; y <= h; y++) {
    const runs: number[] = [];
    if (y < h) {
      const row = (y0 + y) * width + x0;
      let x = 0;
      while (x < w) {
        while (x < w && pixels[row + x] === 0) x++;
        if (x === w) break;
        const from = x;
        while (x < w && pixels[row + x] !== 0) x++;
        runs.push(from, x);
        mark(y * vw + x, SOUTH);
        mark((y + 1) * vw + from, NORTH);
      }
    }
    const line = y * vw;
    // In below and out above: the edge runs east (the mask on its right); out below, west.
    without(runs, above, (from, to) => {
      starts.push(line + from);
      for (let x = from; x < to; x++) mark(line + x, EAST);
    });
    without(above, runs, (from, to) => {
      for (let x = from; x < to; x++) mark(line + x + 1, WEST);
    });
    above = runs;
  }
  const delta = [0, 1, vw, 0, -1, 0, 0, 0, -vw];

  /** A walk's vertices as points, keeping only the corners. */
  const toRing = (loop: number[], dirs: number[]): P[] => {
    const ring: P[] = [];
    for (let k = 0; k < loop.length; k++) {
      const before = dirs[(k - 1 + loop.length) % loop.length];
      if (before === dirs[k]) continue;
      const v = loop[k] as number;
      ring.push([x0 + (v % vw), y0 + Math.floor(v / vw)]);
    }
    return ring;
  };

  const outers: P[][] = [];
  const holes: { ring: P[]; probe: P }[] = [];
  const keep = (loop: number[], dirs: number[]) => {
    const ring = toRing(loop, dirs);
    if (ring.length < 4) return;
    if (signedArea(ring) > 0) outers.push(ring);
    else {
      // The pixel on the right of the hole's first edge is in the zone around the hole.
      const v = loop[0] as number;
      const dx = STEP_X[dirs[0] as number] as number;
      const dy = STEP_Y[dirs[0] as number] as number;
      holes.push({ ring, probe: [x0 + (v % vw) + (dx - dy) / 2, y0 + Math.floor(v / vw) + (dx + dy) / 2] });
    }
  };

  const seen = new Map<number, number>();
  for (const start of starts) {
    while ((outs[start] as number) & EAST) {
      const first = EAST;
      // The walk: each vertex and the direction it leaves in.
      let loop: number[] = [];
      let dirs: number[] = [];
      seen.clear();
      let v = start;
      let dir = first;
      for (;;) {
        const again = seen.get(v);
        if (again !== undefined) {
          // Back at a vertex passed before: the part walked since is a ring of its own.
          keep(loop.slice(again), dirs.slice(again));
          for (const u of loop.slice(again)) seen.delete(u);
          loop = loop.slice(0, again);
          dirs = dirs.slice(0, again);
        }
        seen.set(v, loop.length);
        loop.push(v);
        dirs.push(dir);
        outs[v] = (outs[v] as number) & ~dir;
        v += delta[dir] as number;
        // Right turn first, then straight on, then left: the edge paired with this arrival.
        const open = (outs[v] as number) | (v === start ? first : 0);
        const right = RIGHT[dir] as number;
        const left = LEFT[dir] as number;
        const next = open & right ? right : open & dir ? dir : open & left ? left : 0;
        if (!next) throw new Error('mask outline: an edge leads nowhere');
        if (v === start && next === first) break;
        dir = next;
      }
      keep(loop, dirs);
    }
  }

  const zones: TracedZone[] = outers.map((region) => ({ region, holes: [] }));
  const areas = outers.map((r) => signedArea(r));
  const boxes = outers.map((r) => {
    const xs = r.map((p) => p[0]);
    const ys = r.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  });
  for (const { ring, probe } of holes) {
    // A hole belongs to the smallest outer ring around the pixel beside it.
    let best = -1;
    outers.forEach((outer, k) => {
      const [ax, ay, bx, by] = boxes[k] as number[];
      if (probe[0] < ax! || probe[0] > bx! || probe[1] < ay! || probe[1] > by!) return;
      if ((best < 0 || areas[k]! < areas[best]!) && inside(probe, outer)) best = k;
    });
    if (best >= 0) zones[best]!.holes.push(ring);
  }
  return zones;
}
