import type { CategorySchema } from '../../schemas/category-schema.js';

/*
 * How alike two voxel layers (`medical-brush`, one `.seg.nrrd` per task) are per class: each
 * voxel holds its class number (the tool's numeric `schemaId`), 0 for none. Per class, with A and
 * B the voxels each layer gives that class, Dice = 2|A∩B| / (|A| + |B|) and IoU = |A∩B| / |A∪B|;
 * voxels are compared by position (x, y, slice), a missing layer gives no voxel, and a class
 * neither layer gives is not measured. Dice is the measure consensus and benchmark scores count
 * (the usual one for medical segmentation); IoU is kept beside it.
 */

/** A voxel layer read as class numbers: sizes x, y, z (fastest first), x * y * z samples. */
export interface VoxelClasses {
  sizes: readonly [number, number, number];
  data: ArrayLike<number>;
}

export interface VoxelOverlap {
  dice: number;
  iou: number;
}

/** The class numbers of the ontology's medical-brush tools, in ontology order. */
export function voxelClasses(schema: CategorySchema): { schemaId: string; value: number }[] {
  return (schema.tools ?? [])
    .filter((t) => t.tool === 'medical-brush' && /^[1-9][0-9]*$/.test(t.schemaId))
    .map((t) => ({ schemaId: t.schemaId, value: Number(t.schemaId) }));
}

/** Voxels per class of one layer. */
function classCounts(layer: VoxelClasses | undefined): Map<number, number> {
  const counts = new Map<number, number>();
  if (!layer) return counts;
  const { data } = layer;
  let run = 0;
  let value = 0;
  // Masks are long runs of one value: count runs, not voxels, into the map.
  for (let i = 0; i < data.length; i += 1) {
    const v = data[i] as number;
    if (v === value) {
      run += 1;
      continue;
    }
    if (value !== 0) counts.set(value, (counts.get(value) ?? 0) + run);
    value = v;
    run = 1;
  }
  if (value !== 0) counts.set(value, (counts.get(value) ?? 0) + run);
  return counts;
}

/** Voxels per class that both layers give that class, over the extent both cover. */
function sharedCounts(a: VoxelClasses, b: VoxelClasses): Map<number, number> {
  const shared = new Map<number, number>();
  const [ax, ay] = a.sizes;
  const [bx, by] = b.sizes;
  const [w, h, d] = [Math.min(ax, bx), Math.min(ay, by), Math.min(a.sizes[2], b.sizes[2])];
  for (let z = 0; z < d; z += 1) {
    for (let y = 0; y < h; y += 1) {
      const [ra, rb] = [(z * ay + y) * ax, (z * by + y) * bx];
      for (let x = 0; x < w; x += 1) {
        const v = a.data[ra + x] as number;
        if (v !== 0 && v === b.data[rb + x]) shared.set(v, (shared.get(v) ?? 0) + 1);
      }
    }
  }
  return shared;
}

/**
 * Dice and IoU of every class either layer gives (see the file comment), by class number; a class
 * neither gives is absent.
 */
export function voxelOverlaps(a: VoxelClasses | undefined, b: VoxelClasses | undefined): Map<number, VoxelOverlap> {
  const [inA, inB] = [classCounts(a), classCounts(b)];
  const both = a && b ? sharedCounts(a, b) : new Map<number, number>();
  const out = new Map<number, VoxelOverlap>();
  for (const value of new Set([...inA.keys(), ...inB.keys()])) {
    const [na, nb, nab] = [inA.get(value) ?? 0, inB.get(value) ?? 0, both.get(value) ?? 0];
    out.set(value, { dice: (2 * nab) / (na + nb), iou: nab / (na + nb - nab) });
  }
  return out;
}

/**
 * Mean pairwise Dice and IoU per class over the copies' layers, for the classes of `values`
 * that at least one copy gives; a pair where neither gives a class agrees on it fully.
 */
export function voxelAgreement(
  layers: readonly (VoxelClasses | undefined)[],
  values: readonly number[],
): Map<number, VoxelOverlap> {
  const sums = new Map<number, VoxelOverlap>();
  let pairs = 0;
  const pairOverlaps: Map<number, VoxelOverlap>[] = [];
  for (let i = 0; i < layers.length; i += 1) {
    for (let j = i + 1; j < layers.length; j += 1) {
      pairOverlaps.push(voxelOverlaps(layers[i], layers[j]));
      pairs += 1;
    }
  }
  const given = new Set(pairOverlaps.flatMap((m) => [...m.keys()]));
  for (const value of values) {
    if (!given.has(value)) continue;
    let dice = 0;
    let iou = 0;
    for (const m of pairOverlaps) {
      const o = m.get(value) ?? { dice: 1, iou: 1 };
      dice += o.dice;
      iou += o.iou;
    }
    sums.set(value, { dice: dice / pairs, iou: iou / pairs });
  }
  return sums;
}
