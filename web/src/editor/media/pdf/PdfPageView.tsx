import { type MouseEvent as ReactMouseEvent, type PointerEvent as ReactPointerEvent, useEffect, useRef } from 'react';
import type { EditorObject, Vec } from '../../core/answer';
import type { Pin } from '../../core/surface';
import type { PageRect, PdfGeometry } from '../../tools/pdf';
import { paintTraced, traceByColor } from '../image/traced';
import type { PdfDocument } from './pdf-loader';
import type { PdfLoader } from './usePdf';

export interface PdfPageViewProps {
  pdf: PdfDocument;
  loader: PdfLoader;
  /** 0-based. */
  index: number;
  /** At 100 %, in the page's units. */
  size: Vec;
  scale: number;
  top: number;
  marks: { o: EditorObject; value: PdfGeometry }[];
  /** Objects of image tools on this page (boxes, polygons, points...), in its points. */
  shapes: EditorObject[];
  /** The image tools' colours, by schemaId. */
  shapeColors: Map<string, string>;
  /** Review issues on this page, in its points, numbered as the issue list numbers them. */
  pins: Pin[];
  colors: Map<string, string>;
  selectedId: string | undefined;
  drawing: { from: Vec; to: Vec } | undefined;
  picking: boolean;
  onSize(index: number, size: Vec): void;
  onPointerDown(e: ReactPointerEvent, page: number): void;
  onPointerMove(e: ReactPointerEvent, page: number): void;
  onPointerUp(e: ReactPointerEvent, page: number): void;
  onClick(e: ReactMouseEvent, page: number): void;
}

const box = ([x1, y1, x2, y2]: PageRect, scale: number) => ({
  left: x1 * scale,
  top: y1 * scale,
  width: (x2 - x1) * scale,
  height: (y2 - y1) * scale,
});

/** One page: its picture, its text layer (selectable words) and the marks on it. */
export function PdfPageView(props: PdfPageViewProps) {
  const { pdf, loader, index, scale, onSize } = props;
  const canvas = useRef<HTMLCanvasElement>(null);
  const text = useRef<HTMLDivElement>(null);
  const shapes = useRef<HTMLCanvasElement>(null);
  const [w, h] = props.size;
  const { shapes: objects, shapeColors } = props;

  // Image tools' objects, traced by their tools as the image editor draws them, over the text.
  useEffect(() => {
    const el = shapes.current;
    if (!el) return;
    const ratio = window.devicePixelRatio || 1;
    el.width = Math.ceil(w * scale * ratio);
    el.height = Math.ceil(h * scale * ratio);
    const ctx = el.getContext('2d');
    if (!ctx || !objects.length) return;
    ctx.setTransform(scale * ratio, 0, 0, scale * ratio, 0, 0);
    const batches = traceByColor(objects, (id) => shapeColors.get(id) ?? '#e6194b', 4 / scale);
    paintTraced(ctx, batches, 2 / scale);
  }, [objects, shapeColors, w, h, scale]);

  useEffect(() => {
    const signal = { cancelled: false };
    void pdf
      .getPage(index + 1)
      .then(async (page) => {
        if (signal.cancelled) return;
        const v = page.getViewport({ scale: 1 });
        onSize(index, [v.width, v.height]);
        if (canvas.current && text.current) await loader.drawPage(page, scale, canvas.current, text.current, signal);
      })
      .catch(() => {
        // A page that cannot be drawn stays blank; the others are still shown.
      });
    return () => {
      signal.cancelled = true;
    };
  }, [pdf, loader, index, scale, onSize]);

  return (
    <div
      className={props.picking ? 'pdf-page picking' : 'pdf-page'}
      data-page={index}
      aria-label={`Page ${index + 1}`}
      role="region"
      style={
        {
          top: props.top,
          width: w * scale,
          height: h * scale,
          '--scale-factor': scale,
          '--user-unit': 1,
          '--total-scale-factor': scale,
        } as React.CSSProperties
      }
      onPointerDown={(e) => props.onPointerDown(e, index)}
      onPointerMove={(e) => props.onPointerMove(e, index)}
      onPointerUp={(e) => props.onPointerUp(e, index)}
      onClick={(e) => props.onClick(e, index)}
    >
      <canvas ref={canvas} className="pdf-picture" aria-hidden="true" />
      <div ref={text} className="textLayer" />
      <canvas
        ref={shapes}
        className="pdf-shapes"
        aria-hidden="true"
        data-shapes={objects.length}
        style={{ width: w * scale, height: h * scale }}
      />
      <div className="pdf-marks" aria-hidden="true">
        {props.marks.flatMap(({ o, value }) => {
          const color = props.colors.get(o.schemaId) ?? '#e6194b';
          const selected = o.objectId === props.selectedId;
          const rects = value.rects.length ? value.rects : [value.bounds];
          return rects.map((r, i) => (
            <div
              key={`${o.objectId}:${i}`}
              className={selected ? 'pdf-mark selected' : 'pdf-mark'}
              data-object={o.objectId}
              style={{
                ...box(r, scale),
                background: `${color}40`,
                borderColor: value.rects.length ? 'transparent' : color,
              }}
            />
          ));
        })}
        {props.pins.map((pin) => (
          <div
            key={pin.id}
            className={pin.resolved ? 'pdf-pin resolved' : 'pdf-pin'}
            data-pin={pin.id}
            style={{ left: pin.position[0] * scale, top: pin.position[1] * scale }}
          >
            {pin.label}
          </div>
        ))}
        {props.drawing && (
          <div
            className="pdf-mark drawing"
            style={box(
              [
                Math.min(props.drawing.from[0], props.drawing.to[0]),
                Math.min(props.drawing.from[1], props.drawing.to[1]),
                Math.max(props.drawing.from[0], props.drawing.to[0]),
                Math.max(props.drawing.from[1], props.drawing.to[1]),
              ],
              scale,
            )}
          />
        )}
      </div>
    </div>
  );
}
