/** The brush's sizes in image pixels: where it starts, its bounds, and what `[` and `]` step through. */
export const BRUSH_SIZES = { initial: 20, min: 1, max: 500 } as const;

/** One step of `[` (smaller) or `]` (larger): about a fifth of the size, at least one pixel. */
export function nextBrushSize(size: number, by: -1 | 1): number {
  const step = Math.max(1, Math.round(size / 5));
  return Math.min(BRUSH_SIZES.max, Math.max(BRUSH_SIZES.min, size + by * step));
}

/** The brush's diameter in image pixels (`[` and `]` step it). */
export function BrushSizeInput({ size, onSize }: { size: number; onSize(size: number): void }) {
  return (
    <label>
      Brush size{' '}
      <input
        type="number"
        min={BRUSH_SIZES.min}
        max={BRUSH_SIZES.max}
        step={1}
        value={size}
        aria-keyshortcuts="[ ]"
        onChange={(e) => {
          const n = Number(e.currentTarget.value);
          if (Number.isFinite(n) && n >= BRUSH_SIZES.min) onSize(Math.min(BRUSH_SIZES.max, Math.round(n)));
        }}
      />
    </label>
  );
}

export interface BrushControlsProps {
  size: number;
  onSize(size: number): void;
  eraser: boolean;
  onEraser(on: boolean): void;
  bucket: boolean;
  onBucket(on: boolean): void;
  /** Offered when the organization has an Assist plugin: clicks ask it for a mask instead of painting. */
  assist?: { on: boolean; onChange(on: boolean): void } | undefined;
}

/** What a brush class shows in the toolbar: its size, the eraser and the bucket. */
export function BrushControls(p: BrushControlsProps) {
  return (
    <span className="brush-controls">
      <BrushSizeInput size={p.size} onSize={p.onSize} />
      <button type="button" aria-pressed={p.eraser} aria-keyshortcuts="Shift+E" onClick={() => p.onEraser(!p.eraser)}>
        Eraser <kbd>⇧E</kbd>
      </button>
      <button type="button" aria-pressed={p.bucket} onClick={() => p.onBucket(!p.bucket)} title="Fill a closed area">
        Fill
      </button>
      {p.assist && (
        <button
          type="button"
          aria-pressed={p.assist.on}
          onClick={() => p.assist!.onChange(!p.assist!.on)}
          title="Click the object: the Assist plugin answers its mask"
        >
          Assist
        </button>
      )}
    </span>
  );
}
