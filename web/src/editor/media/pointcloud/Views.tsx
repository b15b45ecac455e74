import type { PointerEvent, ReactNode } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { ANSWER_KEPT } from '../../shell/MediaUnreadable';
import { PartInput } from '../../shell/PartInput';
import type { ColorMode } from './scene';
import type { useScene } from './useScene';

/** What a frame shows: its number once drawn (-1 before), whether the frame asked for is the one drawn, its points. */
export interface Shown {
  frame: number;
  ready: boolean;
  points: number;
}

/** Why the frame cannot be read (the saved answer is kept), else why an action did not go on, in words. */
export function ViewMessage({
  message,
  frameError,
}: {
  message?: string | undefined;
  frameError?: string | undefined;
}) {
  const said = frameError ? `${frameError} ${ANSWER_KEPT}` : message;
  return <ErrorNotice place="form" className="pointcloud-message" error={said} />;
}

/**
 * The frame's views: one WebGL canvas (the top view, the 3D view, the side and front views) and
 * the top view's 2D layer above it. The canvas carries the top view's numbers for tests and tools.
 */
export function PointCloudViews(props: {
  scene: ReturnType<typeof useScene>;
  label: string;
  shown: Shown;
  onPointerDown(e: PointerEvent<HTMLCanvasElement>): void;
  onPointerMove(e: PointerEvent<HTMLCanvasElement>): void;
  onPointerUp(e: PointerEvent<HTMLCanvasElement>): void;
  onDoubleClick?(): void;
}) {
  const { canvasRef, overlayRef, holder, top, regionAt, zoomBy } = props.scene;
  return (
    <div className="pointcloud-views" ref={holder}>
      <canvas
        ref={canvasRef}
        data-testid="pointcloud-canvas"
        aria-label={props.label}
        data-ready={props.shown.ready ? 'true' : 'false'}
        data-frame={props.shown.frame}
        data-points={props.shown.points}
        data-scale={top.scale}
        data-cx={top.cx}
        data-cy={top.cy}
        data-width={top.width}
        data-height={top.height}
        onPointerDown={props.onPointerDown}
        onPointerMove={props.onPointerMove}
        onPointerUp={props.onPointerUp}
        onDoubleClick={props.onDoubleClick}
        onWheel={(e) => {
          const hit = regionAt(e);
          if (hit) zoomBy(hit, e.deltaY);
        }}
        onContextMenu={(e) => e.preventDefault()}
      />
      <canvas ref={overlayRef} className="pointcloud-overlay" aria-hidden="true" />
    </div>
  );
}

/** The frames' controls: previous, next, the frame's number, `actions` beside them and `children` under. */
export function FrameBar(props: {
  page: number;
  total: number;
  go(page: number): void;
  shown: Shown;
  actions?: ReactNode;
  children?: ReactNode;
}) {
  const { page, total, go, shown } = props;
  return (
    <div className="video-player" role="group" aria-label="Frames">
      <div className="video-controls">
        <button type="button" onClick={() => go(page - 1)} aria-label="Previous frame">
          ‹
        </button>
        <button type="button" onClick={() => go(page + 1)} aria-label="Next frame">
          ›
        </button>
        <PartInput label="Frame" page={page} total={total} onGo={go} />
        <span aria-label="Frames in the sequence">of {total}</span>
        {props.actions}
        <output aria-label="Frame shown" data-frame={shown.frame}>
          {shown.frame >= 0 ? `frame ${shown.frame + 1}, ${shown.points.toLocaleString('en')} points` : ''}
        </output>
      </div>
      {props.children}
    </div>
  );
}

/** The toolbar's end: undo and redo of the answer, and what the points are coloured by. */
export function HistoryAndColour(props: {
  history: { travel(type: 'undo' | 'redo'): void; canUndo: boolean; canRedo: boolean };
  mode: ColorMode;
  setMode(mode: ColorMode): void;
  intensity: boolean;
}) {
  const { history } = props;
  return (
    <>
      <button
        type="button"
        onClick={() => history.travel('undo')}
        disabled={!history.canUndo}
        aria-keyshortcuts="Control+Z"
      >
        Undo
      </button>
      <button type="button" onClick={() => history.travel('redo')} disabled={!history.canRedo}>
        Redo
      </button>
      <label>
        Colour by{' '}
        <select value={props.mode} onChange={(e) => props.setMode(e.target.value as ColorMode)}>
          <option value="height">height</option>
          <option value="intensity" disabled={!props.intensity}>
            intensity
          </option>
          <option value="class">class</option>
        </select>
      </label>
    </>
  );
}
