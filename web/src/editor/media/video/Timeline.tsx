import { memo } from 'react';
import type { Track } from '../../core/tracks';
import { type Playhead, usePlayhead } from './playhead';

const ROW = 10;
const WIDTH = 1000;
const xOf = (page: number, total: number) => ((page + 0.5) / total) * WIDTH;

/** A row of marks: where something starts or changes (a diamond), and where it stops (hollow). */
export interface TimelineRow {
  id: string;
  title?: string;
  keyframes: { page: number; hidden?: boolean }[];
}

/**
 * The video's timeline: the playhead, and per track its visible spans as bars and its
 * keyframes as diamonds; under them, per frame-specific question, where its answer changes. A
 * click seeks there.
 */
export function Timeline(props: {
  total: number;
  /** The frame asked for, given as a number or read from a playhead (only the line moves when it changes). */
  page?: number;
  playhead?: Playhead | undefined;
  tracks: readonly Track[];
  /** Frame-specific questions: the frames their answers start, change or stop on. */
  answers?: TimelineRow[];
  selectedId: string | undefined;
  onSeek(page: number): void;
}) {
  const { total } = props;
  const asked = usePlayhead(props.playhead, (p) => p.page);
  const page = props.playhead ? asked : (props.page ?? 0);
  const rows = props.tracks.length + (props.answers?.length ?? 0) || 1;
  const height = rows * ROW + 6;
  return (
    <svg
      className="video-timeline"
      role="slider"
      aria-label="Timeline"
      aria-valuemin={1}
      aria-valuemax={total}
      aria-valuenow={page + 1}
      viewBox={`0 0 ${WIDTH} ${height}`}
      preserveAspectRatio="none"
      height={height}
      onClick={(e) => {
        const r = e.currentTarget.getBoundingClientRect();
        props.onSeek(Math.floor(((e.clientX - r.left) / r.width) * total));
      }}
    >
      <TimelineRows total={total} tracks={props.tracks} answers={props.answers} selectedId={props.selectedId} />
      <line x1={xOf(page, total)} x2={xOf(page, total)} y1={0} y2={height} stroke="#d92d20" strokeWidth={2} />
    </svg>
  );
}

interface RowsProps {
  total: number;
  tracks: readonly Track[];
  answers: TimelineRow[] | undefined;
  selectedId: string | undefined;
}

/**
 * The rows of marks. A frame change moves only the playhead: the rows are drawn again only when
 * the tracks (a new answer), the questions' marks or the selection change, so stepping through a
 * video with thousands of keyframes does not redraw them.
 */
const TimelineRows = memo(
  function TimelineRows(props: RowsProps) {
    const { total } = props;
    const tracks: (TimelineRow & { answer?: boolean })[] = [
      ...props.tracks.map((t) => ({ id: t.objectId, keyframes: t.keyframes })),
      ...(props.answers ?? []).map((a) => ({ ...a, answer: true })),
    ];
    const x = (page: number) => xOf(page, total);
    return (
      <>
        {tracks.map((t, row) => {
          const y = 3 + row * ROW;
          const spans: [number, number][] = [];
          let start: number | undefined;
          for (const k of t.keyframes) {
            if (k.hidden && start !== undefined) {
              spans.push([start, k.page]);
              start = undefined;
            } else if (!k.hidden && start === undefined) start = k.page;
          }
          if (start !== undefined) spans.push([start, total]);
          const color = t.answer ? '#12b76a' : t.id === props.selectedId ? '#1570ef' : '#98a2b3';
          return (
            <g key={t.id} {...(t.answer ? { 'data-question': t.id } : { 'data-object': t.id })}>
              {t.title && <title>{t.title}</title>}
              {spans.map(([a, b]) => (
                <rect
                  key={a}
                  x={x(a) - 0.5}
                  y={y + 2}
                  width={Math.max(1, x(b) - x(a))}
                  height={ROW - 4}
                  fill={color}
                  opacity={0.5}
                />
              ))}
              {t.keyframes.map((k) => (
                <path
                  key={k.page}
                  d={`M${x(k.page)} ${y} l4 ${ROW / 2 - 1} l-4 ${ROW / 2 - 1} l-4 ${-(ROW / 2 - 1)} z`}
                  fill={k.hidden ? '#fff' : color}
                  stroke={color}
                />
              ))}
            </g>
          );
        })}
      </>
    );
  },
  (a, b) =>
    a.total === b.total &&
    a.tracks === b.tracks &&
    a.selectedId === b.selectedId &&
    JSON.stringify(a.answers) === JSON.stringify(b.answers),
);
