import { useRef, useState } from 'react';
import type { Vec } from '../../core/answer';
import { pathThrough } from '../../core/plane';
import type { AssistClient, AssistReply } from '../../core/surface';
import { normalize, ringsOf, zonesOfMask, type Segmentation } from './zones';

/** A candidate of the Assist plugin: its zones, and its pixels (1 in) the image's size. */
export interface Candidate {
  value: Segmentation;
  mask: Uint8Array;
}

export interface AssistPoints {
  positive: Vec[];
  negative: Vec[];
  box?: [number, number, number, number] | undefined;
}

const NO_POINTS: AssistPoints = { positive: [], negative: [] };
/** Clicks go to the plugin in whole pixels. */
const whole = ([x, y]: Vec): Vec => [Math.round(x), Math.round(y)];

function canvasOf(width: number, height: number) {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2d context');
  return ctx;
}

/** A mask PNG's pixels: in where opaque (alpha 128 or more) and not black, as the protocol says. */
async function maskOfPng(dataUrl: string, width: number, height: number): Promise<Uint8Array> {
  const image = new Image();
  image.src = dataUrl;
  await image.decode();
  const ctx = canvasOf(width, height);
  ctx.drawImage(image, 0, 0, width, height);
  const d = ctx.getImageData(0, 0, width, height).data;
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) {
    const o = i * 4;
    mask[i] = d[o + 3]! >= 128 && d[o]! + d[o + 1]! + d[o + 2]! > 0 ? 1 : 0;
  }
  return mask;
}

/** Zones filled into pixels (a pixel is in when its centre is). */
function maskOfZones(value: Segmentation, width: number, height: number): Uint8Array {
  const ctx = canvasOf(width, height);
  const path = new Path2D();
  for (const ring of ringsOf(value)) path.addPath(pathThrough(ring, true));
  ctx.fillStyle = '#fff';
  ctx.fill(path, 'evenodd');
  const d = ctx.getImageData(0, 0, width, height).data;
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = d[i * 4 + 3]! >= 128 ? 1 : 0;
  return mask;
}

export async function candidateOf(reply: AssistReply, width: number, height: number): Promise<Candidate> {
  if (reply.mask) {
    const mask = await maskOfPng(reply.mask, width, height);
    return { value: zonesOfMask(width, height, mask), mask };
  }
  const value = normalize({ zones: reply.zones ?? [] });
  return { value, mask: maskOfZones(value, width, height) };
}

/** Why a request failed, in the server's words when it said them. */
const reason = (err: unknown) =>
  err instanceof Error && err.message ? err.message : 'the Assist plugin could not be asked';

/**
 * The Assist gesture's state: the clicks so far, the candidate answered for them, and whether a
 * request is out. Each click asks again with every point; an answer to an older click is dropped.
 */
export function useAssist(client: AssistClient | undefined, size: { width: number; height: number } | null) {
  const [points, setPoints] = useState<AssistPoints>(NO_POINTS);
  const [candidate, setCandidate] = useState<Candidate | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const asked = useRef(0);

  const ask = async (next: AssistPoints, schemaId: string) => {
    setPoints(next);
    if (!client || !size || (!next.positive.length && !next.box)) return;
    const n = ++asked.current;
    setBusy(true);
    setError(undefined);
    try {
      const reply = await client.request({ schemaId, ...next });
      const made = await candidateOf(reply, size.width, size.height);
      if (n === asked.current) setCandidate(made);
    } catch (err) {
      if (n === asked.current) setError(reason(err));
    } finally {
      if (n === asked.current) setBusy(false);
    }
  };

  return {
    points,
    candidate,
    busy,
    error,
    /** A click: inside the object, or (`outside`) outside it. */
    click: (at: Vec, outside: boolean, schemaId: string) => {
      const p = whole(at);
      return ask(
        outside ? { ...points, negative: [...points.negative, p] } : { ...points, positive: [...points.positive, p] },
        schemaId,
      );
    },
    box: ([x1, y1, x2, y2]: [number, number, number, number], schemaId: string) =>
      ask({ ...points, box: [...whole([x1, y1]), ...whole([x2, y2])] }, schemaId),
    /** Starts again: no points, no candidate (after an accept, a drop, or another tool). */
    reset: () => {
      asked.current++;
      setPoints(NO_POINTS);
      setCandidate(null);
      setBusy(false);
      setError(undefined);
    },
  };
}

export type AssistState = ReturnType<typeof useAssist>;

/** Draws the candidate in `color` and the clicks (green inside, red outside) on a canvas the image's size. */
export function drawCandidate(
  canvas: HTMLCanvasElement,
  state: Pick<AssistState, 'candidate' | 'points'>,
  color: string,
) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (state.candidate) {
    const path = new Path2D();
    for (const ring of ringsOf(state.candidate.value)) path.addPath(pathThrough(ring, true));
    ctx.fillStyle = color;
    ctx.fill(path, 'evenodd');
  }
  const { box } = state.points;
  const r = Math.max(3, Math.round(Math.max(canvas.width, canvas.height) / 200));
  if (box) {
    ctx.strokeStyle = '#ffd700';
    ctx.lineWidth = Math.max(1, r / 2);
    ctx.strokeRect(box[0], box[1], box[2] - box[0], box[3] - box[1]);
  }
  const dot = ([x, y]: Vec, fill: string) => {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, Math.PI * 2);
    ctx.fillStyle = fill;
    ctx.fill();
  };
  for (const p of state.points.positive) dot(p, '#00c853');
  for (const p of state.points.negative) dot(p, '#d50000');
}

export interface AssistControlsProps {
  state: AssistState;
  boxing: boolean;
  onBoxing(on: boolean): void;
  onAccept(): void;
}

/** Assist's buttons: draw a box, accept the candidate (Enter) or drop it (Escape), and what is going on. */
export function AssistControls({ state, boxing, onBoxing, onAccept }: AssistControlsProps) {
  const { candidate, busy, error, points } = state;
  const asked = points.positive.length + points.negative.length > 0 || !!points.box;
  const zones = candidate?.value.zones.length ?? 0;
  return (
    <span className="assist-controls" role="group" aria-label="Assist">
      <button
        type="button"
        aria-pressed={boxing}
        onClick={() => onBoxing(!boxing)}
        title="Drag a box around the object"
      >
        Box
      </button>
      <button type="button" disabled={!zones || busy} onClick={onAccept} aria-keyshortcuts="Enter">
        Accept
      </button>
      <button type="button" disabled={!asked && !candidate} onClick={state.reset} aria-keyshortcuts="Escape">
        Drop
      </button>
      <span role="status" className="muted">
        {busy
          ? 'Asking the model…'
          : candidate
            ? zones
              ? `Candidate: ${zones} zone${zones === 1 ? '' : 's'}. Click to refine, Enter to accept.`
              : 'The model found nothing there.'
            : 'Click inside the object; Alt+click outside it.'}
      </span>
      {error && (
        <span role="alert" className="muted">
          {error}
        </span>
      )}
    </span>
  );
}
