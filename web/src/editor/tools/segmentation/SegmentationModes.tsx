import { BrushSizeInput } from '../brush/BrushControls';

/** How a segmentation object is drawn: clicked as a polygon, painted and traced, or grown by the wand. */
export type SegmentationMode = 'polygon' | 'paint' | 'wand' | 'assist';

const MODES: { mode: SegmentationMode; label: string }[] = [
  { mode: 'polygon', label: 'Polygon' },
  { mode: 'paint', label: 'Paint' },
  { mode: 'wand', label: 'Magic wand' },
  { mode: 'assist', label: 'Assist' },
];

export interface SegmentationModesProps {
  mode: SegmentationMode;
  onMode(mode: SegmentationMode): void;
  size: number;
  onSize(size: number): void;
  tolerance: number;
  onTolerance(tolerance: number): void;
  error: string | undefined;
  /** The organization has an Assist plugin: the Assist mode is offered. */
  assist: boolean;
}

/** The segmentation tool's ways of drawing, and the size of its brush or the wand's tolerance. */
export function SegmentationModes(p: SegmentationModesProps) {
  return (
    <span className="segmentation-modes" role="group" aria-label="Segmentation mode">
      {MODES.filter(({ mode }) => mode !== 'assist' || p.assist).map(({ mode, label }) => (
        <button key={mode} type="button" aria-pressed={p.mode === mode} onClick={() => p.onMode(mode)}>
          {label}
        </button>
      ))}
      {p.mode === 'paint' && <BrushSizeInput size={p.size} onSize={p.onSize} />}
      {p.mode === 'wand' && (
        <label>
          Tolerance{' '}
          <input
            type="number"
            min={0}
            max={255}
            value={p.tolerance}
            onChange={(e) => {
              const n = Number(e.currentTarget.value);
              if (Number.isFinite(n)) p.onTolerance(Math.min(255, Math.max(0, Math.round(n))));
            }}
          />
        </label>
      )}
      {p.error && (
        <span role="alert" className="muted">
          {p.error}
        </span>
      )}
    </span>
  );
}
