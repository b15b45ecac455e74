import type { Surface } from '../core/surface';

/**
 * The surface registry: every folder of media/ with an index.ts whose default export is a
 * Surface. A new medium is a new folder; nothing here or elsewhere names it.
 */
const modules = import.meta.glob<{ default: Surface }>('./*/index.ts', { eager: true });
const SURFACES = new Map<string, Surface>(Object.values(modules).map((m) => [m.default.kind, m.default]));

export function allSurfaces(): Surface[] {
  return [...SURFACES.values()];
}

/** The surface that shows an asset of this kind, if the editor has one. */
export function surfaceFor(kind: string): Surface | undefined {
  return SURFACES.get(kind);
}
