/*
 * What a foreign label file says about one image (or one video), before it is matched to the
 * project: the ways to find its asset, its size if the file knows it, its objects by category
 * name with geometry already in Annotary's shapes (pixels), and its answers by question title.
 */

export type ImportedShape =
  | { kind: 'bounding-box'; box: { x: number; y: number; width: number; height: number } }
  | { kind: 'rotated-bounding-box'; box: { x: number; y: number; width: number; height: number; rotation: number } }
  | { kind: 'polygon'; points: [number, number][] }
  | { kind: 'polyline'; points: [number, number][] }
  | { kind: 'point'; point: [number, number] }
  | { kind: 'segmentation'; zones: { region: [number, number][]; holes: [number, number][][] }[] }
  | { kind: 'ner'; start: number; end: number }
  /** A mask of pixels (RLE or a mask element): becomes zones, or a brush layer for brush tools. */
  | { kind: 'mask'; width: number; height: number; pixels: Uint8Array };

export interface ImportedObject {
  category: string;
  shape: ImportedShape;
  objectId?: string | undefined;
  /** Frame (or page) from 0, for videos. */
  page?: number | undefined;
  /** The object is gone from this frame on (CVAT `outside`). */
  stopped?: boolean | undefined;
  /** Answers of the object's own questions: title -> value (an option's value, or text). */
  attributes: Record<string, unknown>;
}

export interface ImportedImage {
  /** Where the image was found in the file, for the report (file name, image id). */
  source: string;
  /** Ways to find the asset, tried in this order. */
  assetId?: string | undefined;
  externalId?: string | undefined;
  fileName?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
  objects: ImportedObject[];
  /** Image-level answers: question title -> value. */
  classifications: Record<string, unknown>;
  /** Coordinates are fractions of the image size (YOLO): scaled by the asset's size. */
  normalised?: boolean | undefined;
}

/** A refusal of the whole file, with the place it was found. */
export class ImportFileError extends Error {
  constructor(
    message: string,
    readonly field = 'file',
  ) {
    super(message);
  }
}
