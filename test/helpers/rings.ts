/** The ring of an axis-aligned square with its corner at (x, y), in image pixels. */
export const square = (x: number, y: number, s: number): number[][] => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
];

type Ring = readonly (readonly number[])[];

/** Shoelace area of a ring. */
export const ringArea = (ring: Ring) =>
  Math.abs(
    ring.reduce((s, [x, y], i) => s + x! * ring[(i + 1) % ring.length]![1]! - ring[(i + 1) % ring.length]![0]! * y!, 0),
  ) / 2;

/** Area of zones: their regions less their holes. */
export const zonesArea = (zones: readonly { region: Ring; holes: readonly Ring[] }[]) =>
  zones.reduce((s, { region, holes }) => s + ringArea(region) - holes.reduce((h, r) => h + ringArea(r), 0), 0);
