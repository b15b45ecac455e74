import type Konva from 'konva';
import type { KonvaEventObject } from 'konva/lib/Node';
import {
  forwardRef,
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Group, Image as KonvaImage, Layer, Stage, Transformer } from 'react-konva';
import type { DrawableKind, EditorObject, Geometry, Vec } from '../../core/answer';
import type { Pin } from '../../core/surface';
import { hitObject } from '../../core/objects';
import { clampTo } from '../../core/plane';
import { planeTool } from '../../core/tools';
import {
  IDLE,
  dropLastPress,
  finishDrawing,
  pointerDown,
  pointerMove,
  pointerUp,
  type Drawing,
  type Step,
} from './drawing';
import { fitViewport, panBy, toImage, wheelFactor, zoomAt, type Viewport } from './viewport';
import { ObjectShape } from './ObjectShape';
import { ObjectsBatch } from './ObjectsBatch';
import { Pins } from './Pins';
import { useImage } from './useImage';
import { useSmallerCopies } from './useSmallerCopies';
import type { BrushLayer } from '../../tools/brush/layer';

export type { Pin };

export interface ImageCanvasProps {
  imageUrl: string | undefined;
  objects: EditorObject[];
  colorOf(schemaId: string): string;
  /** The tool being drawn with: its geometry kind; undefined selects and moves. */
  drawKind: DrawableKind | undefined;
  selectedId: string | undefined;
  editable: boolean;
  onSelect(objectId: string | undefined): void;
  /** A shape drawn; `modifiers` held on its last press (Alt cuts, Shift adds, for tools that do). */
  onCreate(geometry: Geometry, modifiers: Modifiers): void;
  onChange(objectId: string, geometry: Geometry): void;
  /** Review: a click on the image or an object raises an issue there instead of drawing. */
  onPick?(position: Vec, objectId: string | undefined): void;
  pins?: Pin[];
  /** The image's natural size, once known (for "fit" and the status line). */
  onImageSize?(size: { width: number; height: number }): void;
  onViewportChange?(v: Viewport): void;
  /** Raster layers drawn over the image (the task's brush layer, a sketch being traced). */
  layers?: BrushLayer[];
  /**
   * A picture drawn by the medium instead of `imageUrl` (a video's current frame): redrawn when
   * `version` changes; null while there is none yet.
   */
  frame?: FrameSource | undefined;
  /** Past 1:1 the picture's pixels are drawn as squares (nearest neighbour), as a slice's voxels are read. */
  pixelated?: boolean | undefined;
  /** Painting a layer: presses paint (the right button erases), or fill with the bucket. */
  brush?: BrushGesture | undefined;
  /** A tool of one click (the magic wand): a primary press calls it instead of drawing. */
  onPoint?: ((at: Vec, modifiers: Modifiers) => void) | undefined;
}

export interface FrameSource {
  canvas: HTMLCanvasElement | null;
  width: number;
  height: number;
  version: number;
  /**
   * A medium that paints its canvas itself (a video's frames as they are decoded) calls
   * `repaint` after each picture, instead of handing a new `version` to the editor.
   */
  subscribe?(repaint: () => void): () => void;
}

export interface Modifiers {
  alt: boolean;
  shift: boolean;
}

export interface BrushGesture {
  /** The layer painted. */
  layer: BrushLayer;
  /** Diameter in image pixels. */
  size: number;
  /** The class's colour; null erases. */
  color: string | null;
  /** A press fills the closed area under it instead of painting. */
  bucket: boolean;
  /** A stroke or a fill is done (one step of the layer's undo), with the keys held at its press. */
  onStroke(modifiers: Modifiers): void;
}

export interface ImageCanvasHandle {
  fit(): void;
  zoom(factor: number): void;
  pan(dx: number, dy: number): void;
  /** Finishes a polygon or polyline being drawn (Enter). */
  finish(): void;
  /** Cancels a shape being drawn (Escape); false when nothing was being drawn. */
  cancel(): boolean;
  /** Drops the last vertex of a shape being drawn (Backspace); false when none. */
  undoVertex(): boolean;
  viewport(): Viewport;
  /** Draws the brush layer again (after its undo or redo). */
  repaint(): void;
}

const PAN_STEP = 60;
/** How near (screen pixels) a click must be to an outline, a line or a point to hit it. */
const HIT_TOLERANCE = 5;
/** How far apart (screen pixels) the two presses of a double click may be. */
const DOUBLE_CLICK_SLOP = 4;

/**
 * The drawing surface: the image and the answer's objects in one group scaled by the viewport,
 * so every coordinate below is in image pixels; pointer positions are converted back once.
 */
export const ImageCanvas = forwardRef<ImageCanvasHandle, ImageCanvasProps>(function ImageCanvas(props, ref) {
  const { objects, drawKind, selectedId, editable, colorOf, onSelect, onCreate, onPick, pins } = props;
  // Callbacks given to 500 memoised shapes must not change on every render: they read the latest props.
  const latest = useRef(props);
  latest.current = props;
  const onChange = useCallback((id: string, g: Geometry) => latest.current.onChange(id, g), []);
  const selectObject = useCallback((id: string | undefined) => latest.current.onSelect(id), []);
  const loaded = useImage(props.frame ? undefined : props.imageUrl);
  const frameCanvas = props.frame?.canvas;
  const frameWidth = props.frame?.width ?? 0;
  const frameHeight = props.frame?.height ?? 0;
  const fromFrame = useMemo(
    () =>
      frameCanvas
        ? ({ status: 'ready', image: frameCanvas, width: frameWidth, height: frameHeight } as const)
        : ({ status: 'loading' } as const),
    [frameCanvas, frameWidth, frameHeight],
  );
  const image = props.frame ? fromFrame : loaded;
  const background = useRef<Konva.Image>(null);
  const frameVersion = props.frame?.version;
  useEffect(() => {
    background.current?.getLayer()?.batchDraw();
  }, [frameVersion]);
  const subscribe = props.frame?.subscribe;
  useEffect(() => subscribe?.(() => background.current?.getLayer()?.batchDraw()), [subscribe]);
  const box = useRef<HTMLDivElement>(null);
  const transformer = useRef<Konva.Transformer>(null);
  const nodes = useRef(new Map<string, Konva.Node>());
  // Unknown until the box is measured: the stage is made at its real size, once. Made at a
  // guessed size and resized by the observer, its four canvases (two layers, each with a hit
  // canvas) were allocated twice; in the profile that was konva's `scale` (the first call on a
  // resized canvas), 330 ms of the open's main thread.
  const [measured, setSize] = useState<{ width: number; height: number } | null>(null);
  const size = measured ?? { width: 800, height: 600 };
  const [view, setView] = useState<Viewport>({ scale: 1, offsetX: 0, offsetY: 0 });
  const [drawing, setDrawing] = useState<Drawing>(IDLE);
  const panning = useRef<{ from: Vec; view: Viewport } | null>(null);
  // While the view moves, the objects' hit canvas is not redrawn each frame (it is after).
  const [moving, setMoving] = useState(false);
  const wheelEnd = useRef<number | undefined>(undefined);
  const fitted = useRef<string | undefined>(undefined);
  const layersNode = useRef<Konva.Group>(null);
  const brush = editable && !onPick ? props.brush : undefined;
  const brushLayer = brush?.layer;
  const onPoint = editable && !onPick ? props.onPoint : undefined;
  /** Erasing for this stroke (the eraser, or the right button). */
  const erasing = useRef(false);
  const modifiers = useRef<Modifiers>({ alt: false, shift: false });
  // The screen points of the last two presses: konva calls two quick clicks a double click
  // wherever they land, and quick clicks at two vertices must not finish a polygon.
  const presses = useRef<Vec[]>([]);
  const repaintBrush = () => layersNode.current?.getLayer()?.batchDraw();

  // Made after the first frame, off the main thread: the open does not wait for them.
  const levels = useSmallerCopies(!props.frame && loaded.status === 'ready' ? loaded.image : undefined);
  // The smallest copy still as sharp as the screen: a 4000 px image shown 1000 px wide is drawn
  // from its 1024 px copy, four times less work for every frame of a pan or a zoom.
  const level = levels.find((l) => l.factor >= view.scale);

  const registerNode = useCallback((id: string, node: Konva.Node | null) => {
    if (node) nodes.current.set(id, node);
    else nodes.current.delete(id);
  }, []);

  const updateView = useCallback(
    (next: Viewport) => {
      setView(next);
      props.onViewportChange?.(next);
    },
    [props.onViewportChange],
  );

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const rect = el.getBoundingClientRect();
    setSize({ width: Math.max(100, rect.width), height: Math.max(100, rect.height) });
    const observer = new ResizeObserver(([entry]) => {
      if (!entry) return;
      const width = Math.max(100, entry.contentRect.width);
      const height = Math.max(100, entry.contentRect.height);
      // The same size again (the observer's first call) must not resize the canvases.
      setSize((was) => (was && was.width === width && was.height === height ? was : { width, height }));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const fit = useCallback(() => {
    if (image.status === 'ready' && measured)
      updateView(fitViewport(image.width, image.height, measured.width, measured.height));
  }, [image, measured, updateView]);

  useEffect(() => {
    if (image.status !== 'ready' || !measured) return;
    props.onImageSize?.({ width: image.width, height: image.height });
    if (fitted.current !== props.imageUrl) {
      fitted.current = props.imageUrl;
      fit();
    }
  }, [image, measured, fit, props.imageUrl, props.onImageSize]);

  useEffect(() => setDrawing(IDLE), [drawKind]);

  // The transformer holds the selected box (resize; rotation only for rotated boxes).
  const selected = objects.find((o) => o.objectId === selectedId);
  const unselected = useMemo(() => objects.filter((o) => o.objectId !== selectedId), [objects, selectedId]);
  // Tools resized by the transformer say so (boxes); the others edit their own handles.
  const transform = selected && planeTool(selected.geometry.kind)?.transform;
  const boxSelected = editable && !!transform;
  useEffect(() => {
    const t = transformer.current;
    if (!t) return;
    const node = boxSelected && selectedId ? nodes.current.get(selectedId) : undefined;
    t.nodes(node ? [node] : []);
    t.getLayer()?.batchDraw();
  }, [boxSelected, selectedId, objects]);

  const imagePoint = (stage: Konva.Stage | null): Vec | null => {
    const p = stage?.getPointerPosition();
    if (!p || image.status !== 'ready') return null;
    // Hundredths of a pixel: finer than any screen shows, without float noise in the answer.
    const [x, y] = clampTo(toImage(view, [p.x, p.y]), image.width, image.height);
    return [Math.round(x * 100) / 100, Math.round(y * 100) / 100];
  };

  const finishWith = (step: Step) => {
    setDrawing(step.drawing);
    if (step.done) onCreate(step.done, modifiers.current);
  };

  useImperativeHandle(ref, () => ({
    fit,
    zoom: (factor) => updateView(zoomAt(view, [size.width / 2, size.height / 2], factor)),
    pan: (dx, dy) => updateView(panBy(view, dx * PAN_STEP, dy * PAN_STEP)),
    finish: () => finishWith(finishDrawing(drawing)),
    cancel: () => {
      if (drawing.kind === 'idle') return false;
      setDrawing(IDLE);
      return true;
    },
    undoVertex: () => {
      const dropped = dropLastPress(drawing);
      if (!dropped) return false;
      setDrawing(dropped);
      return true;
    },
    viewport: () => view,
    repaint: repaintBrush,
  }));

  const onMouseDown = (e: KonvaEventObject<MouseEvent>) => {
    const stage = e.target.getStage();
    const screen = stage?.getPointerPosition();
    // Middle button, or the primary button on empty image in select mode, pans.
    const onBackground = e.target === stage || e.target.name() === 'background';
    modifiers.current = { alt: e.evt.altKey, shift: e.evt.shiftKey };
    if (screen) presses.current = [...presses.current.slice(-1), [screen.x, screen.y]];
    if (brush && brushLayer && (e.evt.button === 0 || e.evt.button === 2)) {
      const p = imagePoint(stage);
      if (!p) return;
      erasing.current = e.evt.button === 2 || brush.color === null;
      const color = erasing.current ? null : brush.color;
      if (brush.bucket && e.evt.button === 0) {
        if (brushLayer.fill(p, color)) {
          repaintBrush();
          brush.onStroke(modifiers.current);
        }
        return;
      }
      brushLayer.begin(p, brush.size, color);
      repaintBrush();
      return;
    }
    if (onPoint && e.evt.button === 0) {
      const p = imagePoint(stage);
      if (p) onPoint(p, modifiers.current);
      return;
    }
    // A press on an object that is not selected, in select mode, selects it (a second press drags it).
    if (e.evt.button === 0 && onBackground && editable && !drawKind && !onPick) {
      const p = imagePoint(stage);
      const hit = p && hitObject(unselected, p, HIT_TOLERANCE / view.scale);
      if (hit) {
        onSelect(hit.objectId);
        return;
      }
    }
    if (screen && (e.evt.button === 1 || (e.evt.button === 0 && !drawKind && !onPick && onBackground))) {
      panning.current = { from: [screen.x, screen.y], view };
      setMoving(true);
      if (onBackground) onSelect(undefined);
      return;
    }
    if (e.evt.button !== 0) return;
    const p = imagePoint(stage);
    if (!p) return;
    if (onPick) {
      // The selected object is a konva node of its own (it takes events); the others are one
      // drawing without events, so the model says which of them is under the pointer.
      const named = /(?:^|\s)object-(\S+)/.exec(e.target.name())?.[1];
      onPick(p, named ?? hitObject(unselected, p, HIT_TOLERANCE / view.scale)?.objectId);
      return;
    }
    if (drawKind && editable) finishWith(pointerDown(drawing, drawKind, p, view.scale));
  };

  const onMouseMove = (e: KonvaEventObject<MouseEvent>) => {
    const stage = e.target.getStage();
    if (panning.current) {
      const screen = stage?.getPointerPosition();
      if (screen) {
        const { from, view: start } = panning.current;
        updateView(panBy(start, screen.x - from[0], screen.y - from[1]));
      }
      return;
    }
    if (brush && brushLayer?.stroking) {
      const p = imagePoint(stage);
      if (p && brushLayer.extend(p, brush.size, erasing.current ? null : brush.color)) repaintBrush();
      return;
    }
    if (drawing.kind === 'idle') return;
    const p = imagePoint(stage);
    if (p) setDrawing(pointerMove(drawing, p));
  };

  const onMouseUp = (e: KonvaEventObject<MouseEvent>) => {
    if (panning.current) {
      panning.current = null;
      setMoving(false);
      return;
    }
    if (brushLayer?.stroking) {
      brushLayer.end();
      brush?.onStroke(modifiers.current);
      return;
    }
    const p = imagePoint(e.target.getStage());
    if (p && drawing.kind === 'drawing') finishWith(pointerUp(drawing, p, view.scale));
  };

  const onWheel = (e: KonvaEventObject<WheelEvent>) => {
    e.evt.preventDefault();
    const p = e.target.getStage()?.getPointerPosition();
    if (!p) return;
    setMoving(true);
    window.clearTimeout(wheelEnd.current);
    wheelEnd.current = window.setTimeout(() => setMoving(false), 150);
    if (e.evt.ctrlKey || !e.evt.shiftKey) updateView(zoomAt(view, [p.x, p.y], wheelFactor(e.evt.deltaY)));
    else updateView(panBy(view, -e.evt.deltaY, 0));
  };

  const preview = drawing.kind === 'drawing' && <drawing.tool.Preview drawing={drawing.state} scale={view.scale} />;
  const cursor = onPick || drawKind || brush || onPoint ? 'crosshair' : 'grab';

  return (
    <div
      ref={box}
      className="editor-canvas"
      style={{ cursor }}
      data-testid="editor-canvas"
      // The viewport, for tests and tools that turn image pixels into screen positions.
      data-scale={view.scale}
      data-offset-x={view.offsetX}
      data-offset-y={view.offsetY}
      data-ready={image.status === 'ready' ? 'true' : 'false'}
    >
      {image.status === 'error' && !props.frame && (
        <p className="editor-canvas-message">The image could not be loaded.</p>
      )}
      {image.status === 'loading' && !props.frame && <p className="editor-canvas-message">Loading the image…</p>}
      {measured && (
        <Stage
          width={size.width}
          height={size.height}
          onMouseDown={onMouseDown}
          onMouseMove={onMouseMove}
          onMouseUp={onMouseUp}
          onDblClick={() => {
            const [a, b] = presses.current;
            const inPlace = a && b && Math.hypot(a[0] - b[0], a[1] - b[1]) <= DOUBLE_CLICK_SLOP;
            if (inPlace && drawing.kind === 'drawing') finishWith(finishDrawing(drawing));
          }}
          onWheel={onWheel}
          onContextMenu={(e) => e.evt.preventDefault()}
        >
          {/* One layer (a scene and a hit canvas): each layer's canvases cost an allocation at
              the open. The image takes no events; the objects do when the view rests. */}
          {/* Smoothing is the layer's (its images share the context), so a pixelated picture's
              brush layers are drawn as squares too. */}
          <Layer listening={!moving} imageSmoothingEnabled={!(props.pixelated && view.scale >= 1)}>
            <Group x={view.offsetX} y={view.offsetY} scaleX={view.scale} scaleY={view.scale}>
              {image.status === 'ready' && (
                <KonvaImage
                  ref={background}
                  image={level?.canvas ?? image.image}
                  width={image.width}
                  height={image.height}
                  name="background"
                  listening={false}
                />
              )}
              <Group ref={layersNode} listening={false}>
                {image.status === 'ready' &&
                  (props.layers ?? []).map((layer, i) => (
                    <KonvaImage
                      key={i}
                      image={layer.canvas}
                      width={image.width}
                      height={image.height}
                      name="brush-layer"
                      opacity={0.6}
                      imageSmoothingEnabled={false}
                    />
                  ))}
              </Group>
              <ObjectsBatch objects={unselected} colorOf={colorOf} scale={view.scale} />
              {selected && (
                <ObjectShape
                  key={selected.objectId}
                  object={selected}
                  color={colorOf(selected.schemaId)}
                  scale={view.scale}
                  selected
                  editable={editable && !drawKind && !onPick}
                  onSelect={selectObject}
                  onChange={onChange}
                  registerNode={registerNode}
                />
              )}
              {preview}
              <Pins pins={pins ?? []} scale={view.scale} />
            </Group>
            <Transformer
              ref={transformer}
              rotateEnabled={transform ? transform.rotate : false}
              keepRatio={false}
              ignoreStroke
              flipEnabled={false}
            />
          </Layer>
        </Stage>
      )}
    </div>
  );
});
