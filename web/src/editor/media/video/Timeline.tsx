import type { Track } from '../../core/tracks';

const ROW = 10;

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
  page: number;
  tracks: Track[];
  /** Frame-specific questions: the frames their answers start, change or stop on. */
  answers?: TimelineRow[];
  selectedId: string | undefined;
  onSeek(page: number): void;
}) {
  const { total } = props;
  const tracks: (TimelineRow & { answer?: boolean })[] = [
    ...props.tracks.map((t) => ({ id: t.objectId, keyframes: t.keyframes })),
    ...(props.answers ?? []).map((a) => ({ ...a, answer: true })),
  ];
  const width = 1000;
  const height = Math.max(1, tracks.length) * ROW + 6;
  const x = (page: number) => ((page + 0.5) / total) * width;
  return (
    <svg
      className="video-timeline"
      role="slider"
      aria-label="Timeline"
      aria-valuemin={1}
      aria-valuemax={total}
      aria-valuenow={props.page + 1}
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      height={height}
      onClick={(e) => {
        const r = e.currentTarget.getBoundingClientRect();
        props.onSeek(Math.floor(((e.clientX - r.left) / r.width) * total));
      }}
    >
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
      <line x1={x(props.page)} x2={x(props.page)} y1={0} y2={height} stroke="#d92d20" strokeWidth={2} />
    </svg>
  );
}
