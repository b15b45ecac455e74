/**
 * The editor's own picture of an answer. Geometry is always in IMAGE PIXELS (the API's answer
 * format); only the viewport converts to screen space.
 */
export type Vec = [number, number];

export interface BoxGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface RotatedBoxGeometry extends BoxGeometry {
  /** Degrees, clockwise, about the box's top-left corner (x, y), as the API stores it. */
  rotation: number;
}

export interface SpanGeometry {
  start: number;
  end: number;
}

export type Geometry =
  | { kind: 'bounding-box'; value: BoxGeometry }
  | { kind: 'rotated-bounding-box'; value: RotatedBoxGeometry }
  | { kind: 'polygon'; value: Vec[] }
  | { kind: 'polyline'; value: Vec[] }
  | { kind: 'point'; value: Vec }
  | { kind: 'ner'; value: SpanGeometry };

export type DrawableKind = Geometry['kind'];
export const DRAWABLE_KINDS: readonly DrawableKind[] = [
  'bounding-box',
  'rotated-bounding-box',
  'polygon',
  'polyline',
  'point',
  'ner',
];

/** A classification answer as the API keeps it: option schemaIds, text or a boolean. */
export type AnswerValue = string | string[] | boolean | number | null;

export interface ClassificationAnswer {
  schemaId: string;
  answer: AnswerValue;
  /** Answers to the questions nested under the chosen option(s) or under the question. */
  classifications?: ClassificationAnswer[];
}

export interface EditorObject {
  objectId: string;
  schemaId: string;
  geometry: Geometry;
  classifications: ClassificationAnswer[];
  /** Whatever else the stored object carried (metadata, title...), kept as it was. */
  extra: Record<string, unknown>;
}

export interface EditorRelation {
  relationId: string;
  schemaId: string;
  objectIds: string[];
  extra: Record<string, unknown>;
}

export interface EditorAnswer {
  objects: EditorObject[];
  classifications: ClassificationAnswer[];
  relations: EditorRelation[];
}

export const EMPTY_ANSWER: EditorAnswer = { objects: [], classifications: [], relations: [] };
