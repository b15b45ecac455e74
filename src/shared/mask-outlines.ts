/*
 * A mask's pixels as segmentation zones: the exact outlines of the pixel set along pixel edges,
 * outer rings with the holes inside them. Each boundary edge runs with the mask on its right
 * (clockwise on screen for an outer ring, anticlockwise for a hole); edges are linked into
 * rings at their ends and straight runs merged into one side.
 */

type P = [number, number];

export interface TracedZone {
  region: P[];
  holes: P[][];
}

const key = (x: number, y: number) => y * 65_536 + x;

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

/** Drops the vertices where a ring goes on straight. */
function corners(ring: P[]): P[] {
  return ring.filter((p, i) => {
    const a = ring[(i + ring.length - 1) % ring.length] as P;
    const b = ring[(i + 1) % ring.length] as P;
    return (p[0] - a[0]) * (b[1] - p[1]) - (p[1] - a[1]) * (b[0] - p[0]) !== 0;
  });
}

export function traceZones(width: number, height: number, pixels: Uint8Array): TracedZone[] {
  const on = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && pixels[y * width + x] !== 0;
  // Outgoing boundary edges by their start vertex: [from, to].
  const edges = new Map<number, P[]>();
  const add = (from: P, to: P) => {
    const k = key(from[0], from[1]);
    const list = edges.get(k);
    if (list) list.push(from, to);
    else edges.set(k, [from, to]);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!on(x, y)) continue;
      if (!on(x, y - 1)) add([x, y], [x + 1, y]);
      if (!on(x + 1, y)) add([x + 1, y], [x + 1, y + 1]);
      if (!on(x, y + 1)) add([x + 1, y + 1], [x, y + 1]);
      if (!on(x - 1, y)) add([x, y + 1], [x, y]);
    }
  }
  const rings: P[][] = [];
  for (const [startKey, list] of edges) {
    while (list.length) {
      const ring: P[] = [];
      let from = list[0] as P;
      let dir: P = [0, 0];
      let k = startKey;
      for (;;) {
        const out = edges.get(k);
        if (!out || !out.length) break;
        // Two ways on at a vertex where pixels touch by a corner: take the right turn.
        let pick = 0;
        for (let i = 0; i < out.length; i += 2) {
          const to = out[i + 1] as P;
          const d: P = [to[0] - (out[i] as P)[0], to[1] - (out[i] as P)[1]];
          if (dir[0] * d[1] - dir[1] * d[0] > 0) pick = i;
        }
        const to = out[pick + 1] as P;
        out.splice(pick, 2);
        ring.push(from);
        dir = [to[0] - from[0], to[1] - from[1]];
        from = to;
        k = key(to[0], to[1]);
        if (k === startKey && !edges.get(k)?.length) break;
        if (k === startKey && ring.length > 1) break;
      }
      if (ring.length >= 4) rings.push(corners(ring));
    }
  }
  const outers = rings.filter((r) => signedArea(r) > 0);
  const zones: TracedZone[] = outers.map((region) => ({ region, holes: [] }));
  for (const hole of rings.filter((r) => signedArea(r) < 0)) {
    // A hole belongs to the smallest outer ring around it.
    const around = zones
      .filter((z) => inside([(hole[0] as P)[0] + 0.5, (hole[0] as P)[1] + 0.5], z.region))
      .sort((a, b) => signedArea(a.region) - signedArea(b.region))[0];
    around?.holes.push(hole);
  }
  return zones;
}
