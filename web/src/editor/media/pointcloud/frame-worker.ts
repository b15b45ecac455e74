import { parseCloud, PointCloudError } from '../../../../../src/shared/pointcloud/index';

/** A frame's file to read; its `name` says its format. */
export interface ParseRequest {
  id: number;
  name: string;
  bytes: ArrayBuffer;
}

/** The frame's points, or the reader's words for why they cannot be read (none: it failed otherwise). */
export type ParseAnswer =
  | { id: number; count: number; positions: Float32Array; intensity: Float32Array | undefined }
  | { id: number; words: string | undefined };

/*
 * Reads lidar frames off the page's thread: a frame of a million points would stop the 3D view
 * turning while it is read. The points' arrays are handed back, not copied.
 */
self.onmessage = (e: MessageEvent<ParseRequest>) => {
  const { id, name, bytes } = e.data;
  try {
    const { count, positions, intensity } = parseCloud(name, new Uint8Array(bytes));
    const transfer = intensity ? [positions.buffer, intensity.buffer] : [positions.buffer];
    self.postMessage({ id, count, positions, intensity } satisfies ParseAnswer, { transfer });
  } catch (err) {
    self.postMessage({ id, words: err instanceof PointCloudError ? err.message : undefined } satisfies ParseAnswer);
  }
};
