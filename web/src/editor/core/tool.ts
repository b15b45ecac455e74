import type { ComponentType } from 'react';
import type Konva from 'konva';
import type { DrawableKind, EditorObject, Geometry, GeometryKinds, Vec } from './answer';

/**
 * A Tool is one ontology tool kind (bounding box, polygon, entity span...): how a gesture makes
 * its value, how a click finds it, how it moves, how its value reads from and writes to the wire,
 * and (for plane tools) how it is drawn. Each lives in its own folder of tools/ and is found by
 * core/tools.ts; the editor never switches on a kind. Values are in the medium's own coordinates.
 *
 * The space says which surfaces host it: `plane` tools work in 2-D points of an image (later a
 * video frame, a slice), `text` tools in code-point offsets of a text, `document` tools in points
 * of a document's pages (a PDF's text and areas), `lidar` tools in metres of a point cloud's frame
 * (x forward, y left, z up).
 */
export type ToolSpace = 'plane' | 'text' | 'document' | 'lidar';

/** A point of a document: its page (0-based) and x, y in that page's units (PDF points, y down). */
export type PagePoint = [page: number, x: number, y: number];

/** A position in a space: a point of a plane, a code-point offset in a text, a point of a page. */
export type Position<S extends ToolSpace> = S extends 'plane'
  ? Vec
  : S extends 'document'
    ? PagePoint
    : S extends 'lidar'
      ? [x: number, y: number, z: number]
      : number;

/** How a click lands on a value: near its outline (`edge`, with the distance) or inside (with the area). */
export interface Hit {
  edge: boolean;
  measure: number;
}

/** What a gesture has so far (`drawing`, null when it is over) and, once done, the value made. */
export interface Step<V, D> {
  drawing: D | null;
  done?: V;
}

/** The view a gesture happens in: screen pixels per medium unit, for sizes said on the screen. */
export interface GestureContext {
  scale: number;
  /** A document's page the gesture is on: its size in the page's units. */
  pageSize?: Vec;
}

// Methods (not function properties) on purpose: a Tool of one kind is then usable where any Tool
// is expected, and the registry hands each value only to the tool of its own kind.
export interface Tool<K extends DrawableKind = DrawableKind, S extends ToolSpace = ToolSpace, D = unknown> {
  readonly kind: K;
  /** What the kind is called in the editor ("Bounding box"). */
  readonly name: string;
  readonly space: S;
  /** The wire's value under the kind's key (`{"bounding-box": {...}}`), or null when malformed. */
  read(raw: unknown): GeometryKinds[K] | null;
  /** The value as the wire keeps it under the kind's key. */
  write(value: GeometryKinds[K]): unknown;
  /**
   * A kind whose value lies over several keys of the answer's entry (a point cloud's
   * `markingTool`, `cuboid`...) rather than under its kind's key: `read` is given these keys of
   * the entry and `write` answers them.
   */
  readonly entryKeys?: readonly string[];
  hit(value: GeometryKinds[K], at: Position<S>, tolerance: number): Hit | undefined;
  /** The value moved by a vector of its space. */
  move(value: GeometryKinds[K], by: Position<S>): GeometryKinds[K];
  /** Too small to keep (a click is not a box); `minSize` in medium units. */
  degenerate(value: GeometryKinds[K], minSize: number): boolean;
  /** A press: starts a gesture (`drawing` null) or adds to it (a polygon's next vertex). */
  press(drawing: D | null, at: Position<S>, view: GestureContext): Step<GeometryKinds[K], D>;
  drag(drawing: D, at: Position<S>): D;
  release(drawing: D, at: Position<S>, view: GestureContext): Step<GeometryKinds[K], D>;
  /** Enter or a double click: finishes a gesture of many presses (tools whose gestures have them). */
  finish?(drawing: D): Step<GeometryKinds[K], D>;
  /** Backspace while drawing: drops the last press (null when none is left). */
  dropLast?(drawing: D): D | null;
}

/** What a plane tool's selected shape is given: it edits its own value, in medium coordinates. */
export interface ShapeProps {
  object: EditorObject;
  color: string;
  /** Screen pixels per medium unit: handles and outlines keep their size on the screen. */
  scale: number;
  selected: boolean;
  editable: boolean;
  onSelect(objectId: string): void;
  onChange(objectId: string, geometry: Geometry): void;
  /** A shape resized by the surface's transformer registers its node. */
  registerNode?(objectId: string, node: Konva.Node | null): void;
}

/** The paths of one colour that untouched objects are traced into (one draw call per colour). */
export interface TracePaths {
  fill: Path2D;
  stroke: Path2D;
  dots: Path2D;
}

export interface PlaneTool<K extends DrawableKind = DrawableKind, D = unknown> extends Tool<K, 'plane', D> {
  /** The vertices the value is drawn through (bounds, hit tests, issue pins). */
  outline(value: GeometryKinds[K]): Vec[];
  /** The value with vertex `index` moved to `to` (tools with vertices). */
  moveVertex?(value: GeometryKinds[K], index: number, to: Vec): GeometryKinds[K];
  /** Adds the value to its colour's paths; `radius` is a dot's radius in medium units. */
  trace(paths: TracePaths, value: GeometryKinds[K], radius: number): void;
  /** The selected object, with its handles (konva nodes in medium coordinates). */
  readonly Shape: ComponentType<ShapeProps>;
  /** The gesture under way. */
  readonly Preview: ComponentType<{ drawing: D; scale: number }>;
  /** Resized by the surface's box transformer (rotation too when `rotate`). */
  readonly transform?: { rotate: boolean };
}

export interface TextTool<K extends DrawableKind = DrawableKind, D = unknown> extends Tool<K, 'text', D> {
  /** The code-point range the value covers. */
  range(value: GeometryKinds[K]): { start: number; end: number };
}

export interface DocumentTool<K extends DrawableKind = DrawableKind, D = unknown> extends Tool<K, 'document', D> {
  /** The page (0-based) the value is on, and the rectangles it covers there (x1, y1, x2, y2). */
  placement(value: GeometryKinds[K]): { page: number; rects: [number, number, number, number][] };
}

export type LidarTool<K extends DrawableKind = DrawableKind, D = unknown> = Tool<K, 'lidar', D>;

export type AnyTool = PlaneTool | TextTool | DocumentTool | LidarTool;
