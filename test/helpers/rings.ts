/** The ring of an axis-aligned square with its corner at (x, y), in image pixels. */
export const square = (x: number, y: number, s: number): number[][] => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
];
