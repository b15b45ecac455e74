import type { PaintedLayer } from '../../core/surface';
import { BrushLayer } from './layer';

/** A frame's stored brush layer: the frame (from 0) and a link to its PNG. */
export interface FrameLayerLink {
  page: number;
  url: string;
}

/** Layers kept in memory that hold nothing unsaved: past this, the least recently shown go. */
const KEPT = 16;

/**
 * A video's brush layers, one per frame (docs/api.md, "Brush layers of videos"): the frame shown
 * gets its own BrushLayer, with its own undo, drawn from its stored PNG when it has one. Layers
 * are made as frames are shown and let go once they hold nothing unsaved, so playing a video
 * does not keep a canvas per frame. A save uploads the frames changed since the last one and
 * sends them as `brushFrames` (an emptied frame as "", which removes its layer).
 */
export class FrameBrushLayers implements PaintedLayer {
  private readonly urls = new Map<number, string>();
  private readonly held = new Map<number, BrushLayer>();
  private readonly pages = new Map<BrushLayer, number>();
  private readonly changed = new Set<number>();
  /** Frames being uploaded: held until their new links are known. */
  private readonly saving = new Set<number>();

  constructor(
    readonly width: number,
    readonly height: number,
    stored: readonly FrameLayerLink[],
    /** A stored layer has come in: the frame shown is drawn again. */
    private readonly loaded: () => void,
  ) {
    for (const f of stored) if (f.url) this.urls.set(f.page, f.url);
  }

  /** Frames changed since the last save. */
  get dirty(): boolean {
    return this.changed.size > 0;
  }

  set dirty(value: boolean) {
    if (!value) this.changed.clear();
  }

  /** The layer of frame `page`, made (and its stored PNG read) the first time it is asked for. */
  at(page: number): BrushLayer {
    let layer = this.held.get(page);
    if (layer) {
      // Least recently shown first: the map's order.
      this.held.delete(page);
      this.held.set(page, layer);
      return layer;
    }
    layer = new BrushLayer(this.width, this.height);
    this.held.set(page, layer);
    this.pages.set(layer, page);
    const url = this.urls.get(page);
    if (url) {
      const made = layer;
      const image = new Image();
      image.crossOrigin = 'anonymous';
      image.onload = () => {
        // Strokes made before the stored pixels came in stay on top of them.
        if (made.dirty) return;
        made.load(image);
        this.loaded();
      };
      image.src = url;
    }
    this.letGo(page);
    return layer;
  }

  /** The frame of a layer this made, after a stroke, a fill, an undo or a redo on it. */
  touched(layer: BrushLayer): void {
    const page = this.pages.get(layer);
    if (page !== undefined) this.changed.add(page);
  }

  /** The frames shown with a layer (stored or painted), in order. */
  framesWithLayers(): number[] {
    const pages = new Set(this.urls.keys());
    for (const [page, layer] of this.held) {
      if (this.changed.has(page)) {
        if (layer.empty()) pages.delete(page);
        else pages.add(page);
      }
    }
    return [...pages].sort((a, b) => a - b);
  }

  /** Nothing is painted on any frame. */
  empty(): boolean {
    return this.framesWithLayers().length === 0;
  }

  /** Frame 0's PNG (its `brushDataUrl`); the work page saves a video's layers with `saveParts`. */
  toBlob(): Promise<Blob> {
    return this.at(0).toBlob();
  }

  /**
   * Uploads each changed frame's PNG with `upload` (an emptied frame is sent as "") and answers
   * the `brushFrames` annotate takes; a failure keeps the frames changed for the next save.
   */
  async saveParts(upload: (png: Blob) => Promise<string>): Promise<{ brushFrames: FrameLayerLink[] }> {
    const pages = [...this.changed].sort((a, b) => a - b);
    this.changed.clear();
    for (const page of pages) this.saving.add(page);
    const brushFrames: FrameLayerLink[] = [];
    try {
      for (const page of pages) {
        const layer = this.held.get(page);
        if (!layer) continue;
        brushFrames.push({ page, url: layer.empty() ? '' : await upload(await layer.toBlob()) });
      }
    } catch (err) {
      for (const page of pages) this.changed.add(page);
      throw err;
    } finally {
      for (const page of pages) this.saving.delete(page);
    }
    for (const { page, url } of brushFrames) {
      if (url) this.urls.set(page, url);
      else this.urls.delete(page);
    }
    return { brushFrames };
  }

  /** Lets go of the least recently shown layers that hold nothing unsaved, past KEPT. */
  private letGo(shown: number): void {
    for (const [page, layer] of this.held) {
      if (this.held.size <= KEPT) return;
      if (page === shown || this.changed.has(page) || this.saving.has(page)) continue;
      this.held.delete(page);
      this.pages.delete(layer);
    }
  }
}
