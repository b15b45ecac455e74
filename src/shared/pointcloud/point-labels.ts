/*
 * Point labels of a segmentation-mode answer (`answer.pointLabels`): per frame, a run-length code
 * over the frame's points in file order, `runs: [count, classIndex, count, classIndex, ...]`, where
 * class index 0 is unlabelled and index i is `classes[i - 1]` (ontology schemaIds). Shared by the
 * editor (which holds one class index per point while labelling) and the server.
 */

/** One frame's labels as the answer stores them. */
export interface PointLabels {
  page: number;
  classes: string[];
  runs: number[];
}

/**
 * The stored form of one frame's labels. `labels` holds one index per point into `classes`
 * (0: unlabelled, i: `classes[i - 1]`); only the classes used are written, in `classes`' order.
 */
export function encodePointLabels(page: number, labels: Uint8Array, classes: readonly string[]): PointLabels {
  const used = new Uint8Array(classes.length + 1);
  for (let p = 0; p < labels.length; p++) used[labels[p] as number] = 1;
  // The stored index of each of the caller's indexes: classes that are not used get no index.
  const stored = new Uint8Array(classes.length + 1);
  const written: string[] = [];
  for (let i = 1; i <= classes.length; i++) {
    if (!used[i]) continue;
    written.push(classes[i - 1] as string);
    stored[i] = written.length;
  }
  const runs: number[] = [];
  let p = 0;
  while (p < labels.length) {
    const label = labels[p] as number;
    let end = p + 1;
    while (end < labels.length && labels[end] === label) end++;
    runs.push(end - p, stored[label] ?? 0);
    p = end;
  }
  return { page, classes: written, runs };
}

/**
 * One frame's stored labels as one index per point into `classes` (0 for a point unlabelled, or
 * labelled with a class `classes` does not hold). Throws when the runs do not cover `count` points.
 */
export function decodePointLabels(item: PointLabels, count: number, classes: readonly string[]): Uint8Array {
  const total = labelledShare(item).total;
  if (total !== count) throw new RangeError(`the stored labels cover ${total} points; the frame has ${count}`);
  const index = item.classes.map((c) => classes.indexOf(c) + 1);
  const out = new Uint8Array(count);
  let p = 0;
  for (let r = 0; r + 1 < item.runs.length; r += 2) {
    const n = item.runs[r] as number;
    const cls = item.runs[r + 1] as number;
    if (cls > 0) out.fill(index[cls - 1] ?? 0, p, p + n);
    p += n;
  }
  return out;
}

/** How many points the runs cover and how many of them carry a class. */
export function labelledShare(item: PointLabels): { labelled: number; total: number } {
  let total = 0;
  let labelled = 0;
  for (let r = 0; r + 1 < item.runs.length; r += 2) {
    const n = item.runs[r] as number;
    total += n;
    if ((item.runs[r + 1] as number) !== 0) labelled += n;
  }
  return { labelled, total };
}

/** The stored items of an answer's `pointLabels` that have the expected shape. */
export function readPointLabels(raw: unknown): PointLabels[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    if (!item || typeof item !== 'object') return [];
    const { page, classes, runs } = item as Record<string, unknown>;
    const ok =
      Number.isInteger(page) &&
      Array.isArray(classes) &&
      classes.every((c) => typeof c === 'string') &&
      Array.isArray(runs) &&
      runs.every((n) => Number.isInteger(n) && (n as number) >= 0);
    return ok ? [{ page: page as number, classes: classes as string[], runs: runs as number[] }] : [];
  });
}
