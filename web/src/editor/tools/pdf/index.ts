import type { Vec } from '../../core/answer';
import type { DocumentTool, PagePoint } from '../../core/tool';

/** A rectangle of a page in its units (PDF points at scale 1, y down from the page's top). */
export type PageRect = [x1: number, y1: number, x2: number, y2: number];

/**
 * A mark on a PDF: selected words (`rects`, one per word) or an area dragged with Alt (`rects`
 * empty), on one page, with the words' text or the area's picture when the project asks for it.
 * Kept as the original keeps it: `pageNumber` counted from 1, the page size the numbers refer to.
 */
export interface PdfGeometry {
  /** 0-based, as every medium of many parts counts; the wire's `pageNumber` is this + 1. */
  page: number;
  pageSize: Vec;
  bounds: PageRect;
  rects: PageRect[];
  text?: string;
  image?: string;
}

declare module '../../core/answer' {
  interface GeometryKinds {
    pdf: PdfGeometry;
  }
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const r2 = (n: number) => Math.round(n * 100) / 100;
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function readRect(raw: unknown): PageRect | null {
  if (!isRec(raw)) return null;
  const { x1, y1, x2, y2 } = raw;
  return finite(x1) && finite(y1) && finite(x2) && finite(y2) ? [x1, y1, x2, y2] : null;
}

/** The rectangle that holds them all. */
export function enclosing(rects: PageRect[]): PageRect {
  return [
    Math.min(...rects.map((r) => r[0])),
    Math.min(...rects.map((r) => r[1])),
    Math.max(...rects.map((r) => r[2])),
    Math.max(...rects.map((r) => r[3])),
  ];
}

/** Words selected on a page, as their rectangles there, into a value. */
export function fromWords(page: number, pageSize: Vec, rects: PageRect[], text: string): PdfGeometry {
  const kept = rects.map((r) => r.map(r2) as PageRect);
  return { page, pageSize, bounds: enclosing(kept), rects: kept, text };
}

const inside = (r: PageRect, x: number, y: number, tolerance: number) =>
  x >= r[0] - tolerance && x <= r[2] + tolerance && y >= r[1] - tolerance && y <= r[3] + tolerance;

interface Dragging {
  page: number;
  from: [number, number];
  to: [number, number];
  pageSize: Vec;
}

const pdf: DocumentTool<'pdf', Dragging> = {
  kind: 'pdf',
  name: 'PDF',
  space: 'document',
  read(raw) {
    if (!isRec(raw) || !isRec(raw.position)) return null;
    const { boundingRect, rects, pageNumber } = raw.position;
    const bounds = readRect(boundingRect);
    if (!bounds || !isRec(boundingRect) || !Number.isInteger(pageNumber) || (pageNumber as number) < 1) return null;
    const list = Array.isArray(rects) ? rects.map(readRect) : [];
    if (list.some((r) => r === null)) return null;
    const { width, height } = boundingRect;
    const value: PdfGeometry = {
      page: (pageNumber as number) - 1,
      pageSize: [finite(width) ? width : 0, finite(height) ? height : 0],
      bounds,
      rects: list as PageRect[],
    };
    const content = isRec(raw.content) ? raw.content : {};
    if (typeof content.text === 'string') value.text = content.text;
    if (typeof content.image === 'string') value.image = content.image;
    return value;
  },
  write(value) {
    const [width, height] = value.pageSize;
    const rect = ([x1, y1, x2, y2]: PageRect) => ({ x1, y1, x2, y2, width, height });
    return {
      position: { boundingRect: rect(value.bounds), rects: value.rects.map(rect), pageNumber: value.page + 1 },
      content:
        value.image !== undefined ? { image: value.image } : value.text !== undefined ? { text: value.text } : {},
    };
  },
  placement: (value) => ({ page: value.page, rects: value.rects.length ? value.rects : [value.bounds] }),
  hit(value, [page, x, y], tolerance) {
    if (page !== value.page) return undefined;
    const rects = value.rects.length ? value.rects : [value.bounds];
    const on = rects.find((r) => inside(r, x, y, tolerance));
    if (!on) return undefined;
    const [x1, y1, x2, y2] = value.bounds;
    return { edge: false, measure: (x2 - x1) * (y2 - y1) };
  },
  move(value, [, dx, dy]) {
    const shift = ([x1, y1, x2, y2]: PageRect): PageRect => [x1 + dx, y1 + dy, x2 + dx, y2 + dy];
    return { ...value, bounds: shift(value.bounds), rects: value.rects.map(shift) };
  },
  degenerate(value, minSize) {
    const [x1, y1, x2, y2] = value.bounds;
    return x2 - x1 < minSize || y2 - y1 < minSize;
  },
  press: (_drawing, [page, x, y]: PagePoint, view) => ({
    drawing: { page, from: [x, y], to: [x, y], pageSize: view.pageSize ?? [0, 0] },
  }),
  drag: (drawing, [page, x, y]) => (page === drawing.page ? { ...drawing, to: [x, y] } : drawing),
  release(drawing, [page, x, y]) {
    const to = page === drawing.page ? [x, y] : drawing.to;
    const bounds = [
      Math.min(drawing.from[0], to[0]!),
      Math.min(drawing.from[1], to[1]!),
      Math.max(drawing.from[0], to[0]!),
      Math.max(drawing.from[1], to[1]!),
    ].map(r2) as PageRect;
    const value: PdfGeometry = { page: drawing.page, pageSize: drawing.pageSize, bounds, rects: [] };
    return bounds[2] > bounds[0] && bounds[3] > bounds[1] ? { drawing: null, done: value } : { drawing: null };
  },
};

export default pdf;
