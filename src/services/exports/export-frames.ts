import {
  expandTrack,
  objectKey,
  pageOf,
  questionKey,
  videoFrameTotal,
  wireTracks,
  type WireEntry,
} from '../../shared/tracks.js';
import type { TaskPageRow } from '../../store/repositories/export.repository.js';
import type { JsonSink } from './export-item-json.js';
import type { AnswerLists } from './export-readable.js';

/*
 * A video's answer in the JSON export: every track expanded to every frame it is shown on, by
 * the same rules the editor draws with (src/shared/tracks.ts). The stored answer holds keyframes
 * and stop entries only; ten minutes of 30 fps with 50 tracks expand to some 900,000 entries, so
 * the entries are written in parts of PART_ENTRIES, the export's chunks handed on between parts
 * (export-chunks.ts): memory holds the stored answer and one part, whatever the video's length.
 */

/** Entries written between two hand-overs of the export's chunks (some 200 KB of JSON). */
const PART_ENTRIES = 1000;

/**
 * The frame count of a task's asset when its tracks are to be expanded (`videoFrameTotal`): a
 * number for a video, null for a video without its frame count yet (expanded to the last frame
 * any entry names), undefined for assets whose entries are exported as stored.
 */
export function videoFrames(row: Pick<TaskPageRow, 'metadata' | 'dataset' | 'data'>): number | null | undefined {
  return videoFrameTotal(row);
}

/** Whether an answer has any entry on a frame (otherwise it is written as stored). */
export function hasFrames(lists: AnswerLists): boolean {
  const on = (l: unknown[]) => l.some((e) => !!e && typeof e === 'object' && pageOf(e as WireEntry) !== undefined);
  return on(lists.tools) || on(lists.classifications);
}

const entries = (l: unknown[]) => l.filter((e): e is WireEntry => !!e && typeof e === 'object' && !Array.isArray(e));

/** The last frame entries are expanded to: the asset's last, or the last any entry names. */
function lastFrameOf(lists: AnswerLists, frameTotal: number | null): number {
  if (frameTotal !== null) return frameTotal - 1;
  let last = 0;
  for (const e of [...entries(lists.tools), ...entries(lists.classifications)]) last = Math.max(last, pageOf(e) ?? 0);
  return last;
}

/**
 * `"tools":[...],"classifications":[...],"relations":[...]` with every track (an object's
 * entries, a frame-specific question's answers) on every frame it is shown on; entries without a
 * frame first, as stored. A generator: each step writes one part.
 */
export function* writeExpandedFields(out: JsonSink, lists: AnswerLists, frameTotal: number | null): Generator<void> {
  const lastFrame = lastFrameOf(lists, frameTotal);
  let n = 0;
  const list = function* (items: WireEntry[], keyOf: (e: WireEntry, i: number) => string): Generator<void> {
    const { tracks, whole: once } = wireTracks(items, keyOf);
    let first = true;
    const put = (e: WireEntry) => {
      out.write(first ? JSON.stringify(e) : `,${JSON.stringify(e)}`);
      first = false;
    };
    for (const e of once) put(e);
    for (const track of tracks) {
      for (const e of expandTrack(track.entries, lastFrame)) {
        put(e);
        if (++n % PART_ENTRIES === 0) yield;
      }
    }
  };
  out.write('"tools":[');
  yield* list(entries(lists.tools), objectKey);
  out.write('],"classifications":[');
  yield* list(entries(lists.classifications), questionKey);
  out.write(`],"relations":${JSON.stringify(lists.relations)}`);
}

/** Writes a task's answer in parts when it is a video's with tracks; undefined leaves it as stored. */
export type AnswerParts = (out: JsonSink, row: TaskPageRow) => Iterator<void> | undefined;

/** The answer writer of an export that expands tracks (every export but includeOnlyKeyFrames=true). */
export function expandedAnswers(readable: { lists(text: string): AnswerLists }): AnswerParts {
  return (out, row) => {
    // Most answers are of still images: they keep the fast path of the stored text.
    if (!row.answer.includes('"page":')) return undefined;
    const frames = videoFrames(row);
    if (frames === undefined) return undefined;
    const lists = readable.lists(row.answer);
    return hasFrames(lists) ? writeExpandedFields(out, lists, frames) : undefined;
  };
}
