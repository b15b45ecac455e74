import type { TextTool } from '../../core/tool';

/** A span of a text in code points, end exclusive (Python's `text[start:end]`). */
export interface SpanGeometry {
  start: number;
  end: number;
}

declare module '../../core/answer' {
  interface GeometryKinds {
    ner: SpanGeometry;
  }
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Where a selection began (code points) and where it is now. */
interface Selecting {
  anchor: number;
  focus: number;
}

/**
 * Entity spans (NER) of a text: a selection from one offset to another, in either direction,
 * makes the span between them. Offsets count code points, as the API's answers do.
 */
const entity: TextTool<'ner', Selecting> = {
  kind: 'ner',
  name: 'Entity',
  space: 'text',
  read: (raw) => (isRec(raw) ? { start: +raw.start!, end: +raw.end! } : null),
  write: (value) => value,
  range: (value) => value,
  hit: (value, at) =>
    at >= value.start && at < value.end ? { edge: false, measure: value.end - value.start } : undefined,
  move: (value, by) => ({ start: value.start + by, end: value.end + by }),
  degenerate: (value) => value.end <= value.start,
  press: (_drawing, at) => ({ drawing: { anchor: at, focus: at } }),
  drag: (drawing, at) => ({ ...drawing, focus: at }),
  release(drawing, at) {
    const span = { start: Math.min(drawing.anchor, at), end: Math.max(drawing.anchor, at) };
    return span.end > span.start ? { drawing: null, done: span } : { drawing: null };
  },
};

export default entity;
