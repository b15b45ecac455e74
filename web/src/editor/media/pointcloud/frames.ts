import { parseCloud, PointCloudError, type PointCloud } from '../../../../../src/shared/pointcloud/index';
import { fetchMedia, MediaError } from '../fetch-media';
import { parseFrame, ReaderGone } from './frame-parser';

/** A frame as the editor holds it: its points, or why it cannot be shown. */
export type FrameState = { cloud: PointCloud } | { error: string };

/**
 * A sequence's frames, each fetched and read once (in the frame reader, off the page's thread),
 * kept for the frames around the one shown (a frame of a million points is 12 MB): `get` answers
 * a frame, `readAhead` starts the next ones.
 */
export class FrameStore {
  private readonly frames = new Map<number, Promise<FrameState>>();

  constructor(
    private readonly urls: readonly string[],
    private readonly keep = 6,
  ) {}

  get total(): number {
    return this.urls.length;
  }

  get(page: number): Promise<FrameState> {
    let found = this.frames.get(page);
    if (!found) {
      found = this.load(page);
      this.frames.set(page, found);
    }
    return found;
  }

  /** Starts reading the `count` frames after `page`; forgets frames far from it. */
  readAhead(page: number, count = 2): void {
    for (let p = page + 1; p <= page + count && p < this.total; p++) void this.get(p);
    for (const p of this.frames.keys()) if (Math.abs(p - page) > this.keep) this.frames.delete(p);
  }

  private async load(page: number): Promise<FrameState> {
    const url = this.urls[page];
    if (!url) return { error: `The task has no frame ${page + 1}.` };
    try {
      const name = new URL(url, location.href).pathname;
      const read = () => fetchMedia(url, 'point cloud frame');
      try {
        return { cloud: await parseFrame(name, await read()) };
      } catch (e) {
        if (!(e instanceof ReaderGone)) throw e;
        // The frame reader stopped with the bytes: read them again (from the browser's cache) here.
        return { cloud: parseCloud(name, new Uint8Array(await read())) };
      }
    } catch (e) {
      if (e instanceof MediaError) return { error: `Frame ${page + 1}: ${e.message}` };
      if (e instanceof PointCloudError) return { error: `Frame ${page + 1}: ${e.message}.` };
      return { error: `Frame ${page + 1} could not be read.` };
    }
  }
}
