import { parseCloud, PointCloudError, type PointCloud } from '../../../../../src/shared/pointcloud/index';
import type { ParseAnswer, ParseRequest } from './frame-worker';

/** The frame reader could not be started, or stopped: the frames it held are read again here. */
export class ReaderGone extends Error {}

let worker: Worker | undefined;
let gone = typeof Worker === 'undefined';
let lastId = 0;
const waiting = new Map<number, { resolve(a: ParseAnswer): void; reject(e: Error): void }>();

/** The page's one frame reader (a Web Worker), started with the first frame and kept for the next. */
function reader(): Worker | undefined {
  if (gone || worker) return worker;
  try {
    worker = new Worker(new URL('./frame-worker.ts', import.meta.url), { type: 'module' });
  } catch {
    gone = true;
    return undefined;
  }
  worker.onmessage = (e: MessageEvent<ParseAnswer>) => {
    waiting.get(e.data.id)?.resolve(e.data);
    waiting.delete(e.data.id);
  };
  worker.onerror = () => {
    gone = true;
    worker?.terminate();
    worker = undefined;
    for (const w of waiting.values()) w.reject(new ReaderGone());
    waiting.clear();
  };
  return worker;
}

/**
 * Reads a frame's bytes (`name`: its path, which says the format) in the frame reader, the bytes
 * handed over rather than copied; on the page's thread when the reader cannot run. Throws what
 * parseCloud throws (PointCloudError in words), or ReaderGone when the reader stopped with the
 * frame (its bytes went with it).
 */
export async function parseFrame(name: string, bytes: ArrayBuffer): Promise<PointCloud> {
  const w = reader();
  if (!w) return parseCloud(name, new Uint8Array(bytes));
  const id = ++lastId;
  const answer = await new Promise<ParseAnswer>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, name, bytes } satisfies ParseRequest, [bytes]);
  });
  if (!('words' in answer)) return { count: answer.count, positions: answer.positions, intensity: answer.intensity };
  throw answer.words === undefined ? new Error('the frame reader failed') : new PointCloudError(answer.words);
}
