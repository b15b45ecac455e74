import type { Vec } from '../../core/answer';
import type { PaintedLayer } from '../../core/surface';

/** The side of the squares a stroke's undo keeps the former pixels of. */
const TILE = 128;

/** An area of the layer, in whole pixels: x, y, width, height. */
type Rect = [number, number, number, number];

/** What a stroke changed: the former pixels of every tile it touched. */
type Patch = Map<number, ImageData>;

/** `#rrggbb` as bytes; anything else is red. */
export function rgbOf(color: string): [number, number, number] {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color.trim());
  if (!m) return [230, 25, 75];
  return [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)];
}

/**
 * The task's brush layer: a transparent canvas the image's size that each brush class paints in
 * its colour, opaque (no antialiasing: a pixel is a class's colour or transparent, as masks are
 * read). A stroke paints only the pixels near each segment of the pointer's path, so its cost is
 * the brush's, never the layer's; before it changes a tile of 128 px it keeps that tile's former
 * pixels, which is the stroke's undo (and, swapped back, its redo).
 */
export class BrushLayer implements PaintedLayer {
  readonly canvas: HTMLCanvasElement;
  readonly width: number;
  readonly height: number;
  private readonly ctx: CanvasRenderingContext2D;
  private undos: Patch[] = [];
  private redos: Patch[] = [];
  private open: Patch | null = null;
  private last: Vec | null = null;
  /** Where every painted pixel lies (it may hold cleared ones too); null when none is. */
  private painted: Rect | null = null;
  /** Changes since the layer was made or loaded (nothing to save while false). */
  dirty = false;
  /**
   * The project's `segmentationOverlap: earlier-wins`: a class paints only pixels that are
   * transparent or already its own, never over another class (the eraser still clears them).
   */
  keepOthers = false;

  constructor(width: number, height: number) {
    this.width = Math.max(1, Math.round(width));
    this.height = Math.max(1, Math.round(height));
    this.canvas = document.createElement('canvas');
    this.canvas.width = this.width;
    this.canvas.height = this.height;
    const ctx = this.canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new Error('no 2d context');
    this.ctx = ctx;
  }

  /** Draws a stored layer (a PNG of the image's size) under nothing: the layer starts as it was. */
  load(image: CanvasImageSource): void {
    this.ctx.clearRect(0, 0, this.width, this.height);
    this.ctx.drawImage(image, 0, 0, this.width, this.height);
    this.undos = [];
    this.redos = [];
    this.dirty = false;
    this.painted = [0, 0, this.width, this.height];
  }

  get canUndo(): boolean {
    return this.undos.length > 0;
  }

  get canRedo(): boolean {
    return this.redos.length > 0;
  }

  /** Starts a stroke at `at`: paints (or erases, when `color` is null) a dot of `size` px. */
  begin(at: Vec, size: number, color: string | null): Rect | null {
    this.open = new Map();
    this.last = at;
    return this.segment(at, at, size, color);
  }

  /** Continues the stroke to `at`; answers the area changed (null when none). */
  extend(at: Vec, size: number, color: string | null): Rect | null {
    if (!this.open || !this.last) return null;
    const from = this.last;
    this.last = at;
    return this.segment(from, at, size, color);
  }

  /** Ends the stroke: one step of undo. */
  end(): void {
    if (this.open?.size) {
      this.undos.push(this.open);
      this.redos = [];
    }
    this.open = null;
    this.last = null;
  }

  get stroking(): boolean {
    return this.open !== null;
  }

  undo(): boolean {
    return this.travel(this.undos, this.redos);
  }

  redo(): boolean {
    return this.travel(this.redos, this.undos);
  }

  /**
   * The brush-bucket: the area of the same colour as the pixel at `at`, reached through its four
   * neighbours and bounded by other colours or the layer's edge, becomes `color` (transparent
   * when null). One step of undo. Answers the area changed.
   */
  fill(at: Vec, color: string | null): Rect | null {
    const x0 = Math.floor(at[0]);
    const y0 = Math.floor(at[1]);
    if (x0 < 0 || y0 < 0 || x0 >= this.width || y0 >= this.height) return null;
    const { width: w, height: h } = this;
    const all = this.ctx.getImageData(0, 0, w, h);
    const px = new Uint32Array(all.data.buffer);
    const target = px[y0 * w + x0]!;
    const [r, g, b] = color ? rgbOf(color) : [0, 0, 0];
    const bytes = new Uint8ClampedArray([r, g, b, color ? 255 : 0]);
    const paint = new Uint32Array(bytes.buffer)[0]!;
    if (paint === target) return null;
    // Another class's area is not filled over when earlier paint wins.
    if (color && this.keepOthers && new Uint8ClampedArray(new Uint32Array([target]).buffer)[3]) return null;
    // Scanline flood fill over the packed pixels.
    let minX = x0;
    let maxX = x0;
    let minY = y0;
    let maxY = y0;
    const stack: number[] = [x0, y0];
    while (stack.length) {
      const y = stack.pop()!;
      let x = stack.pop()!;
      let i = y * w + x;
      while (x > 0 && px[i - 1] === target) {
        x--;
        i--;
      }
      let upOpen = false;
      let downOpen = false;
      for (; x < w && px[i] === target; x++, i++) {
        px[i] = paint;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y > 0) {
          const up = px[i - w] === target;
          if (up && !upOpen) stack.push(x, y - 1);
          upOpen = up;
        }
        if (y < h - 1) {
          const down = px[i + w] === target;
          if (down && !downOpen) stack.push(x, y + 1);
          downOpen = down;
        }
      }
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    const rect: Rect = [minX, minY, maxX - minX + 1, maxY - minY + 1];
    this.open = new Map();
    this.keep(rect);
    this.ctx.putImageData(all, 0, 0, rect[0], rect[1], rect[2], rect[3]);
    this.dirty = true;
    if (color) this.grow(rect);
    this.end();
    return rect;
  }

  /** Paints every pixel of `mask` (1 in, row by row, the layer's size) in `color`: one step of undo. */
  paintMask(mask: Uint8Array, color: string): Rect | null {
    const { width: w, height: h } = this;
    let [minX, minY, maxX, maxY] = [w, h, -1, -1];
    for (let i = 0; i < mask.length && i < w * h; i++) {
      if (!mask[i]) continue;
      const x = i % w;
      const y = (i - x) / w;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    if (maxX < 0) return null;
    const rect: Rect = [minX, minY, maxX - minX + 1, maxY - minY + 1];
    this.open = new Map();
    this.keep(rect);
    const img = this.ctx.getImageData(...rect);
    const [r, g, b] = rgbOf(color);
    for (let y = 0; y < rect[3]; y++)
      for (let x = 0; x < rect[2]; x++) {
        if (!mask[(y + minY) * w + x + minX]) continue;
        const at = (y * rect[2] + x) * 4;
        if (this.keepOthers && this.other(img.data, at, r, g, b)) continue;
        img.data.set([r, g, b, 255], at);
      }
    this.ctx.putImageData(img, minX, minY);
    this.dirty = true;
    this.grow(rect);
    this.end();
    return rect;
  }

  /** The layer as one PNG of the image's size. */
  toBlob(): Promise<Blob> {
    return new Promise((resolve, reject) =>
      this.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'),
    );
  }

  /** Every pixel cleared, with no undo (a sketch traced into zones starts again). */
  clear(): void {
    this.ctx.clearRect(0, 0, this.width, this.height);
    this.undos = [];
    this.redos = [];
    this.dirty = false;
    this.painted = null;
  }

  /**
   * The painted pixels (alpha > 0), row by row the layer's size: 1 painted, 0 not; and the area
   * outside which none is. Only that area's pixels are read.
   */
  mask(): { pixels: Uint8Array; area: Rect } {
    const out = new Uint8Array(this.width * this.height);
    const area = this.painted ?? [0, 0, 0, 0];
    const [x0, y0, w, h] = area;
    if (!w || !h) return { pixels: out, area };
    const data = this.ctx.getImageData(x0, y0, w, h).data;
    for (let y = 0; y < h; y++) {
      const row = (y0 + y) * this.width + x0;
      for (let x = 0, i = y * w * 4 + 3; x < w; x++, i += 4) out[row + x] = data[i] ? 1 : 0;
    }
    return { pixels: out, area };
  }

  /** Whether any pixel is painted. */
  empty(): boolean {
    if (!this.painted) return true;
    const data = this.ctx.getImageData(...this.painted).data;
    for (let i = 3; i < data.length; i += 4) if (data[i]) return false;
    return true;
  }

  /** Takes `rect` into the area painted pixels lie in. */
  private grow([x, y, w, h]: Rect): void {
    const was = this.painted;
    if (!was) {
      this.painted = [x, y, w, h];
      return;
    }
    const x0 = Math.min(was[0], x);
    const y0 = Math.min(was[1], y);
    this.painted = [x0, y0, Math.max(was[0] + was[2], x + w) - x0, Math.max(was[1] + was[3], y + h) - y0];
  }

  /** Whether the pixel at byte `i` is painted in a colour other than (r, g, b). */
  private other(d: Uint8ClampedArray, i: number, r: number, g: number, b: number): boolean {
    return d[i + 3] !== 0 && (d[i] !== r || d[i + 1] !== g || d[i + 2] !== b);
  }

  private travel(from: Patch[], to: Patch[]): boolean {
    const patch = from.pop();
    if (!patch) return false;
    const swapped: Patch = new Map();
    for (const [key, former] of patch) {
      const [x, y] = this.tileOrigin(key);
      swapped.set(key, this.ctx.getImageData(x, y, former.width, former.height));
      this.ctx.putImageData(former, x, y);
      this.grow([x, y, former.width, former.height]);
    }
    to.push(swapped);
    this.dirty = true;
    return true;
  }

  private tileOrigin(key: number): Vec {
    const cols = Math.ceil(this.width / TILE);
    return [(key % cols) * TILE, Math.floor(key / cols) * TILE];
  }

  /** Keeps the former pixels of every tile of `rect` the open stroke has not touched yet. */
  private keep([x, y, w, h]: Rect): void {
    const open = this.open;
    if (!open) return;
    const cols = Math.ceil(this.width / TILE);
    for (let ty = Math.floor(y / TILE); ty <= Math.floor((y + h - 1) / TILE); ty++)
      for (let tx = Math.floor(x / TILE); tx <= Math.floor((x + w - 1) / TILE); tx++) {
        const key = ty * cols + tx;
        if (open.has(key)) continue;
        const ox = tx * TILE;
        const oy = ty * TILE;
        open.set(key, this.ctx.getImageData(ox, oy, Math.min(TILE, this.width - ox), Math.min(TILE, this.height - oy)));
      }
  }

  /** Paints the pixels whose centres lie within size/2 of the segment from `a` to `b`. */
  private segment(a: Vec, b: Vec, size: number, color: string | null): Rect | null {
    const r = Math.max(0.5, size / 2);
    const x1 = Math.max(0, Math.floor(Math.min(a[0], b[0]) - r));
    const y1 = Math.max(0, Math.floor(Math.min(a[1], b[1]) - r));
    const x2 = Math.min(this.width, Math.ceil(Math.max(a[0], b[0]) + r));
    const y2 = Math.min(this.height, Math.ceil(Math.max(a[1], b[1]) + r));
    if (x2 <= x1 || y2 <= y1) return null;
    const rect: Rect = [x1, y1, x2 - x1, y2 - y1];
    this.keep(rect);
    const img = this.ctx.getImageData(x1, y1, rect[2], rect[3]);
    const d = img.data;
    const [cr, cg, cb] = color ? rgbOf(color) : [0, 0, 0];
    const alpha = color ? 255 : 0;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const len2 = dx * dx + dy * dy;
    const r2 = r * r;
    const keep = color !== null && this.keepOthers;
    let i = 0;
    for (let y = y1; y < y2; y++) {
      const py = y + 0.5 - a[1];
      for (let x = x1; x < x2; x++, i += 4) {
        const px = x + 0.5 - a[0];
        const t = len2 ? Math.max(0, Math.min(1, (px * dx + py * dy) / len2)) : 0;
        const ex = px - t * dx;
        const ey = py - t * dy;
        if (ex * ex + ey * ey > r2) continue;
        if (keep && this.other(d, i, cr, cg, cb)) continue;
        d[i] = cr;
        d[i + 1] = cg;
        d[i + 2] = cb;
        d[i + 3] = alpha;
      }
    }
    this.ctx.putImageData(img, x1, y1);
    this.dirty = true;
    if (color) this.grow(rect);
    return rect;
  }
}
