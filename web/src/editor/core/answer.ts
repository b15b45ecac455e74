/**
 * The editor's own picture of an answer. Geometry is always in the MEDIUM'S OWN coordinates
 * (image pixels, a text's code points; later a frame's pixels, a page's PDF points, voxels,
 * metres), as the API's answer holds it; only a surface converts to screen space.
 */
export type Vec = [number, number];

/** An axis-aligned box in a plane medium's coordinates (bounds, "zoom to object"). */
export interface BoxGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The value each tool kind keeps, by kind. Empty here: each folder of tools/ adds its kind with
 * `declare module '../../core/answer'`, so a new tool extends `Geometry` without touching core.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface GeometryKinds {}

export type DrawableKind = keyof GeometryKinds & string;

/** One object's shape: its tool kind and that kind's value. */
export type Geometry = { [K in DrawableKind]: { kind: K; value: GeometryKinds[K] } }[DrawableKind];

/**
 * Where in a medium of many parts an object lies: a document's page, a video's frame, a volume's
 * slice (0-based). Absent for a medium of one part (an image, a text).
 */
export interface Where {
  page?: number;
}

/** A classification answer as the API keeps it: option schemaIds, text or a boolean. */
export type AnswerValue = string | string[] | boolean | number | null;

export interface ClassificationAnswer {
  schemaId: string;
  answer: AnswerValue;
  /** Answers to the questions nested under the chosen option(s) or under the question. */
  classifications?: ClassificationAnswer[];
  /** A frame-specific question's answer holds from this frame (0-based) on, until the next. */
  page?: number;
  /** The frame-specific question is unanswered from `page` on. */
  interpolationStopped?: boolean;
}

export interface EditorObject {
  objectId: string;
  schemaId: string;
  geometry: Geometry;
  /** The part of the medium it is on, for media of many parts. */
  where?: Where;
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
  /** The stored answer's other parts (a point cloud's `pointLabels`), kept and sent back as they are. */
  extra?: Record<string, unknown>;
}

export const EMPTY_ANSWER: EditorAnswer = { objects: [], classifications: [], relations: [] };
