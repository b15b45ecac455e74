import type { FieldError } from '../../errors.js';

/**
 * An issue's `pctDetails`, which the client sends as it likes: the keys known here are checked
 * (`frame` a frame of the asset, `position` a point of finite numbers, `objectId` and `sensor`
 * names), any other key is kept as sent.
 */

const FIELD = 'pctDetails';
const AXES = ['x', 'y', 'z'] as const;
const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function nameError(value: unknown, errors: FieldError[], field: string) {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    errors.push({ field, message: 'must be a non-empty string of at most 200 characters' });
  }
}

/** Adds the problems of `details` to `errors`; `frames` is the asset's frame count when known. */
export function checkPctDetails(details: Record<string, unknown>, frames: number | undefined, errors: FieldError[]) {
  const { frame, position, objectId, sensor } = details;
  if (frame !== undefined) {
    if (typeof frame !== 'number' || !Number.isInteger(frame) || frame < 0) {
      errors.push({ field: `${FIELD}.frame`, message: 'must be a whole number from 0 (the first frame)' });
    } else if (frames !== undefined && frame >= frames) {
      errors.push({ field: `${FIELD}.frame`, message: `must be a frame of the asset (0 to ${frames - 1})` });
    }
  }
  if (position !== undefined) {
    if (!isRec(position)) {
      errors.push({ field: `${FIELD}.position`, message: 'must be an object {x, y, z} (metres, in the lidar frame)' });
    } else {
      for (const axis of AXES) {
        const v = position[axis];
        if (typeof v !== 'number' || !Number.isFinite(v)) {
          errors.push({ field: `${FIELD}.position.${axis}`, message: 'must be a finite number (metres)' });
        }
      }
    }
  }
  if (objectId !== undefined) nameError(objectId, errors, `${FIELD}.objectId`);
  if (sensor !== undefined) nameError(sensor, errors, `${FIELD}.sensor`);
}
