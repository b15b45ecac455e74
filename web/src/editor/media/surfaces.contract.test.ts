import { describe, expect, it } from 'vitest';
import type { Surface } from '../core/surface';
import { allTools } from '../core/tools';
import { allSurfaces, surfaceFor } from './surfaces';

/*
 * The Surface contract, for every registered medium: a point of the medium shown on the screen
 * and read back is the same point, under every view a person reaches (fitted, zoomed, panned).
 * Written against the interface only: a new folder of media/ is held to it without a line here.
 */

/** Numbers and tuples of numbers, equal to the hundredth (what a pointer can place). */
function expectSame(actual: unknown, expected: unknown) {
  if (typeof expected === 'number') return expect(actual as number).toBeCloseTo(expected, 2);
  expect(Array.isArray(actual) && Array.isArray(expected)).toBe(true);
  (expected as unknown[]).forEach((e, i) => expectSame((actual as unknown[])[i], e));
}

describe('the surface registry', () => {
  it('shows images and texts, each surface found by its asset kind', () => {
    expect(surfaceFor('image')?.space).toBe('plane');
    expect(surfaceFor('text')?.space).toBe('text');
    expect(surfaceFor('a kind nobody draws')).toBeUndefined();
  });
  it('has tools for the space of every surface', () => {
    for (const surface of allSurfaces()) expect(allTools().some((t) => t.space === surface.space)).toBe(true);
  });
});

describe.each(allSurfaces().map((s) => [s.kind, s] as const))('the %s surface', (_kind, surface: Surface) => {
  it('has views to walk, with points of the medium', () => {
    const examples = surface.examples();
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) expect(e.points.length).toBeGreaterThan(0);
  });
  it('reads back the medium point it put on the screen, under every view', () => {
    for (const { view, points } of surface.examples()) {
      for (const p of points) expectSame(surface.toMedium(view, surface.toScreen(view, p)), p);
    }
  });
  it('puts different points of the medium at different places on the screen', () => {
    for (const { view, points } of surface.examples()) {
      const shown = points.map((p) => JSON.stringify(surface.toScreen(view, p)));
      expect(new Set(shown).size).toBe(new Set(points.map((p) => JSON.stringify(p))).size);
    }
  });
});
