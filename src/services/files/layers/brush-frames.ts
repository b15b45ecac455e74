import type { AppContext } from '../../../context.js';
import { invalid, type FieldError } from '../../../errors.js';
import { checkBrushDataUrl } from './brush-layer.js';

/*
 * A video's brush layers, one per frame (docs/api.md, "Brush layers of videos"): each a PNG the
 * video's size, kept as the task's `brush_frames`, `[{page, url}]` in frame order. Frame 0's
 * layer is also the task's `brushDataUrl`, so a client that knows one layer per task reads and
 * writes frame 0. A save names only the frames it changes; the others keep their layers.
 */

export interface BrushFrame {
  /** The frame, counted from 0. */
  page: number;
  url: string;
}

const isFrame = (v: unknown): v is BrushFrame =>
  !!v &&
  typeof v === 'object' &&
  Number.isInteger((v as BrushFrame).page) &&
  (v as BrushFrame).page >= 0 &&
  typeof (v as BrushFrame).url === 'string';

/** The stored frame layers of a task (tasks.brush_frames), in frame order; [] when none. */
function storedBrushFrames(text: string | null): BrushFrame[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter(isFrame) : [];
  } catch {
    return [];
  }
}

/**
 * A task's layers by frame, in frame order: [] unless its asset is a video. A video's layer set
 * by `brushDataUrl` alone (a pre-label import, a save from before frame layers) is frame 0's.
 */
export function videoBrushFrames(task: FrameLayerColumns, metadata: string | null): BrushFrame[] {
  if (assetFrameTotal(metadata) === undefined) return [];
  const frames = storedBrushFrames(task.brush_frames);
  return frames.length || !task.brush_data_url ? frames : [{ page: 0, url: task.brush_data_url }];
}

/** `brushFrames` as answered, each link signed afresh by `links`; undefined when no frame has a layer. */
export function brushFramesOut(
  task: FrameLayerColumns,
  metadata: string | null,
  links: (stored: string | null) => string | null,
): BrushFrame[] | undefined {
  const frames = videoBrushFrames(task, metadata);
  return frames.length ? frames.map((f) => ({ page: f.page, url: links(f.url) ?? f.url })) : undefined;
}

/** The asset's `metadata.frameTotal`: the frames a video's layers may be on; undefined for other assets. */
export function assetFrameTotal(metadata: string | null): number | undefined {
  if (!metadata) return undefined;
  try {
    const { frameTotal } = JSON.parse(metadata) as { frameTotal?: unknown };
    return typeof frameTotal === 'number' && Number.isInteger(frameTotal) && frameTotal > 0 ? frameTotal : undefined;
  } catch {
    return undefined;
  }
}

export interface SentFrameLayers {
  brushDataUrl?: string | undefined;
  brushFrames?: readonly BrushFrame[] | undefined;
}

export interface FrameLayerColumns {
  brush_data_url: string | null;
  brush_frames: string | null;
}

/**
 * A video task's layers after a save: each frame `brushFrames` names gets its checked link (""
 * removes its layer), `brushDataUrl` is frame 0's; frames not named keep theirs. Every fault is
 * named (`brushFrames[2].page`, `brushFrames[0].url`) and nothing is kept of a refused save.
 */
export async function savedBrushFrames(
  ctx: AppContext,
  task: FrameLayerColumns,
  sent: SentFrameLayers,
  where: {
    projectId: string;
    orgId: string;
    image: { width: number; height: number } | undefined;
    frameTotal: number;
    metadata: string | null;
  },
  bases: string[] | undefined,
): Promise<FrameLayerColumns> {
  const changes: { field: string; page: number; url: string }[] = (sent.brushFrames ?? []).map((f, i) => ({
    field: `brushFrames[${i}]`,
    ...f,
  }));
  if (sent.brushDataUrl !== undefined) changes.push({ field: 'brushDataUrl', page: 0, url: sent.brushDataUrl });
  const errors: FieldError[] = [];
  const seen = new Map<number, string>();
  for (const c of changes) {
    const pageField = c.field === 'brushDataUrl' ? c.field : `${c.field}.page`;
    if (c.page >= where.frameTotal) {
      errors.push({
        field: pageField,
        message: `must be below ${where.frameTotal}, the video's frame count (counted from 0)`,
      });
    } else if (seen.has(c.page)) {
      errors.push({ field: pageField, message: `names frame ${c.page}'s layer, as ${seen.get(c.page)} does` });
    }
    seen.set(c.page, c.field);
  }
  if (errors.length) throw invalid(errors);
  const frames = new Map(videoBrushFrames(task, where.metadata).map((f) => [f.page, f.url]));
  for (const c of changes) {
    const urlField = c.field === 'brushDataUrl' ? c.field : `${c.field}.url`;
    if (c.url === '') frames.delete(c.page);
    else frames.set(c.page, await checkBrushDataUrl(ctx, urlField, c.url, where, bases));
  }
  const list = [...frames.entries()].sort((a, b) => a[0] - b[0]).map(([page, url]) => ({ page, url }));
  return { brush_data_url: frames.get(0) ?? null, brush_frames: list.length ? JSON.stringify(list) : null };
}
