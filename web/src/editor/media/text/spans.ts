import type { EditorObject } from '../../core/answer';

/**
 * NER offsets in the answer count Unicode code points, as Python's str does, so a script that
 * slices `text[start:end]` gets the span the labeler saw; the browser counts UTF-16 units.
 */
export function toCodePoints(text: string, utf16Index: number): number {
  return [...text.slice(0, utf16Index)].length;
}

export function toUtf16(text: string, codePointIndex: number): number {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === codePointIndex) break;
    units += ch.length;
    points++;
  }
  return units;
}

export interface Segment {
  /** UTF-16 range in the text. */
  from: number;
  to: number;
  /** Objects covering this piece, outermost first. */
  objects: EditorObject[];
}

/** The text cut at every span boundary, each piece with the spans over it (overlaps allowed). */
export function segments(text: string, spans: EditorObject[]): Segment[] {
  const ranges = spans.flatMap((o) =>
    o.geometry.kind === 'ner'
      ? [{ o, from: toUtf16(text, o.geometry.value.start), to: toUtf16(text, o.geometry.value.end) }]
      : [],
  );
  const cuts = new Set([0, text.length]);
  for (const r of ranges) {
    cuts.add(Math.min(text.length, r.from));
    cuts.add(Math.min(text.length, r.to));
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i < points.length - 1; i++) {
    const from = points[i] as number;
    const to = points[i + 1] as number;
    if (to <= from) continue;
    const covering = ranges.filter((r) => r.from <= from && r.to >= to).sort((a, b) => a.from - b.from || b.to - a.to);
    out.push({ from, to, objects: covering.map((r) => r.o) });
  }
  return out;
}
