import { traceZones } from '../../../shared/mask-outlines.js';
import type { BrushLayer } from '../../files/layers/brush-layers.js';
import { signedArea } from '../../../workflow/consensus/geometry.js';
import type { Pt } from './geometry.js';

/*
 * Areas with holes as the single polygons a YOLO segment line holds. Each hole is joined to its
 * outer ring by a cut there and back (the way Ultralytics merges a COCO object's several
 * segments into one line): the two edges of the cut cancel, so the line's shoelace area and its
 * even-odd fill are the region less its holes, exactly. The hole starts at its vertex nearest
 * the outer ring's vertex it is joined to.
 */

const d2 = (a: Pt, b: Pt) => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;

/** One ring: `region` with each of `holes` cut into it. */
export function bridgeHoles(region: readonly Pt[], holes: readonly (readonly Pt[])[]): Pt[] {
  if (!holes.length) return [...region];
  // Per region vertex, the holes joined there, in the order they come.
  const joined = new Map<number, Pt[][]>();
  const wound = Math.sign(signedArea(region));
  for (const drawn of holes) {
    // A hole runs against its region, so the line's signed area is the region's less the hole's.
    const hole = Math.sign(signedArea(drawn)) === wound ? [...drawn].reverse() : drawn;
    let best = Infinity;
    let at = 0;
    let from = 0;
    // The nearest pair between the hole and the region, measured from a few of the hole's
    // vertices at most so a long traced hole against a long region stays linear.
    const step = Math.max(1, Math.floor(hole.length / 16));
    for (let j = 0; j < hole.length; j += step) {
      for (let i = 0; i < region.length; i++) {
        const d = d2(hole[j] as Pt, region[i] as Pt);
        if (d < best) {
          best = d;
          at = i;
          from = j;
        }
      }
    }
    const cut = [...hole.slice(from), ...hole.slice(0, from), hole[from] as Pt];
    const list = joined.get(at);
    if (list) list.push(cut);
    else joined.set(at, [cut]);
  }
  const out: Pt[] = [];
  region.forEach((p, i) => {
    out.push(p);
    for (const cut of joined.get(i) ?? []) out.push(...cut, p);
  });
  return out;
}

/** A brush layer's classes as rings in pixel-corner coordinates: per class, one ring per traced zone. */
export function brushRings(layer: BrushLayer): { classIndex: number; rings: Pt[][] }[] {
  const { width, height, data } = layer.raster;
  const out: { classIndex: number; rings: Pt[][] }[] = [];
  const mask = new Uint8Array(width * height);
  layer.classes.forEach((_, k) => {
    let any = false;
    for (let p = 0; p < data.length; p++) {
      const on = data[p] === k + 1 ? 1 : 0;
      mask[p] = on;
      if (on) any = true;
    }
    if (!any) return;
    const zones = traceZones(width, height, mask);
    out.push({ classIndex: k, rings: zones.map((z) => bridgeHoles(z.region, z.holes)) });
  });
  return out;
}
