import { ImportFileError } from './imported-labels.js';

/*
 * How much one label import takes. Past these the file is refused with a 400 naming `file` (and
 * nothing is written) rather than read until memory runs out: the converted answers of a whole
 * import are held until its one transaction, so their number is bounded.
 */

export const IMPORT_LIMITS = {
  /** Images (or tasks, label files) in one file. */
  images: 1_000_000,
  /** Objects in one file, over all its images. */
  objects: 2_000_000,
  /** Objects of one image or video (lines of one YOLO label file). */
  objectsPerImage: 100_000,
} as const;

const n = (v: number) => v.toLocaleString('en-US');

export function tooManyImages(): ImportFileError {
  return new ImportFileError(
    `the file holds more than ${n(IMPORT_LIMITS.images)} images: split it and import each part`,
  );
}

export function tooManyObjects(): ImportFileError {
  return new ImportFileError(
    `the file holds more than ${n(IMPORT_LIMITS.objects)} objects: split it and import each part`,
  );
}

export function tooManyObjectsIn(source: string): ImportFileError {
  return new ImportFileError(`"${source}" holds more than ${n(IMPORT_LIMITS.objectsPerImage)} objects`);
}
