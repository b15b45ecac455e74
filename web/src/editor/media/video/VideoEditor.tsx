import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import type { EditorAnswer } from '../../core/answer';
import { answerAt, answersAt, keyframeStepFrom, setAnswersAt, setKeyframe, tracksOf } from '../../core/tracks';
import { typingInField } from '../../shell/useEditorKeys';
import { VIDEO_KEYS } from '../../shell/editor-keys';
import { MediaUnreadable, UnreadableNotice } from '../../shell/MediaUnreadable';
import { ImageEditor, type PagedEditing } from '../image/ImageEditor';
import { CodecError, VideoFrames } from './mp4-frames';
import { FallbackPlayer } from './FallbackPlayer';
import { openSource } from './byte-source';
import { useOpened } from '../useOpened';
import { PartInput } from '../../shell/PartInput';
import { Timeline } from './Timeline';
import { Playhead, usePlayhead } from './playhead';
import { FramePainter, useFramePainting, usePlayback } from './frame-painter';
import { FrameBrushLayers } from '../../tools/brush/frame-layers';
import type { BrushLayer } from '../../tools/brush/layer';

const SPEEDS = [0.25, 0.5, 1, 1.5, 2, 4];

/**
 * The video editor: the image editor's tools, keys, pan and zoom, undo and drafts on the frame
 * shown, and a player under it (Frame input, stepping, play at a speed, the timeline of tracks).
 * Brush classes paint the frame shown: each frame has its own layer.
 */
export function VideoSurfaceEditor({
  asset,
  onPick,
  brushUrl,
  brushFrames,
  onBrushChange,
  ...props
}: SurfaceEditorProps) {
  // A codec WebCodecs cannot decode is no failure: the browser's own player shows the video.
  const loading = useOpened(
    asset.url,
    async (url): Promise<{ frames: VideoFrames } | { fallback: CodecError }> => {
      try {
        return { frames: await VideoFrames.open(await openSource(url, 'video')) };
      } catch (e) {
        if (e instanceof CodecError) return { fallback: e };
        throw e;
      }
    },
    {
      missing: 'The task has no video.',
      failed: 'The video could not be opened.',
      close: (opened) => ('frames' in opened ? opened.frames.close() : undefined),
    },
  );
  const video = loading.status === 'ready' && 'frames' in loading.value ? loading.value.frames : undefined;
  const fallback = loading.status === 'ready' && 'fallback' in loading.value ? loading.value.fallback : undefined;
  const playhead = useMemo(() => (video ? new Playhead(video.frameTotal) : undefined), [video]);
  const painter = useMemo(() => (video ? new FramePainter(video.width, video.height) : undefined), [video]);
  // The frame the canvas shows: its objects are drawn and edited. A frame change renders what
  // depends on it; the picture itself is painted outside React.
  const page = usePlayhead(playhead, (p) => Math.max(0, p.shown));
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [frameError, setFrameError] = useState<string | undefined>(undefined);
  const editing = useRef<PagedEditing | undefined>(undefined);
  const total = video?.frameTotal ?? 1;

  // Brush layers, one per frame: the frame shown is painted, undone and saved on its own.
  const paints = (props.ontology.tools ?? []).some((t) => t.tool === 'brush') || !!brushUrl || !!brushFrames?.length;
  const frameLayers = useMemo(
    () =>
      video && painter && paints
        ? new FrameBrushLayers(video.width, video.height, brushFrames ?? [], () => painter.repaint())
        : undefined,
    [video, painter, paints],
  );
  const brushLayer = useMemo(() => frameLayers?.at(page), [frameLayers, page]);
  const brushChanged = useCallback(
    (layer: BrushLayer) => {
      if (!frameLayers) return;
      frameLayers.touched(layer);
      onBrushChange?.(frameLayers);
    },
    [frameLayers, onBrushChange],
  );

  const go = useCallback((to: number) => playhead?.go(to), [playhead]);
  useFramePainting(video, playhead, painter, setFrameError);
  usePlayback(video, playhead, playing, speed, () => setPlaying(false));

  const keyframeStep = (direction: 1 | -1) => {
    const e = editing.current;
    if (!e?.selectedId) return;
    const target = keyframeStepFrom(e.answer.objects, e.selectedId, playhead?.page ?? 0, direction);
    if (target !== undefined) go(target);
  };

  // The player's keys come before the image editor's (whose arrows pan).
  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.ctrlKey || e.metaKey) return;
      const step = e.shiftKey ? 10 : 1;
      let handled = true;
      if (e.key === ' ' && !(e.target instanceof HTMLButtonElement)) setPlaying((p) => !p);
      else if (e.key === 'ArrowRight' && e.altKey) keyframeStep(1);
      else if (e.key === 'ArrowLeft' && e.altKey) keyframeStep(-1);
      else if (e.key === 'ArrowRight' || e.key === '.' || e.key === '>') go((playhead?.page ?? 0) + step);
      else if (e.key === 'ArrowLeft' || e.key === ',' || e.key === '<') go((playhead?.page ?? 0) - step);
      else handled = false;
      if (handled) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('keydown', handler, true);
    return () => window.removeEventListener('keydown', handler, true);
  });

  const player = (state: PagedEditing) => {
    editing.current = state;
    const hideAt = (hidden: boolean) => {
      if (!state.selectedId) return;
      const objects = setKeyframe(state.answer.objects, state.selectedId, page, (entry) => {
        const { interpolationStopped: _was, ...extra } = entry.extra;
        return { ...entry, extra: hidden ? { ...extra, interpolationStopped: true } : extra };
      });
      state.change({ ...state.answer, objects } satisfies EditorAnswer);
    };
    const selectedTrack = state.selectedId
      ? tracksOf(state.answer.objects).find((t) => t.objectId === state.selectedId)
      : undefined;
    const before = selectedTrack?.keyframes.filter((k) => k.page <= page).at(-1);
    const hiddenHere = !!before?.hidden;
    // Frame-specific questions: stopped from the frame shown, and their changes on the timeline.
    const frameQuestions = ontology.classifications?.filter((c) => c.frameSpecific) ?? [];
    const frameIds = new Set(frameQuestions.map((c) => c.schemaId));
    const stopAnswer = (schemaId: string) => {
      const all = state.answer.classifications;
      const shownHere = answersAt(all, page, frameIds);
      const next = shownHere.filter((c) => c.schemaId !== schemaId);
      state.change({ ...state.answer, classifications: setAnswersAt(all, shownHere, next, page, frameIds) });
    };
    return (
      <div className="video-player" role="group" aria-label="Video player">
        {frameError && <UnreadableNotice problem={frameError} />}
        {video?.vfr && (
          <p className="video-note" role="note">
            This video&apos;s frames are unevenly spaced (a variable frame rate): drawing, keyframes and interpolation
            are off for it. Answer its whole-video questions.
          </p>
        )}
        <div className="video-controls">
          <button type="button" onClick={() => setPlaying((p) => !p)} aria-keyshortcuts="Space" disabled={!video}>
            {playing ? 'Pause' : 'Play'}
          </button>
          <button
            type="button"
            onClick={() => go((playhead?.page ?? 0) - 1)}
            aria-label="Previous frame"
            disabled={!video}
          >
            ‹
          </button>
          <button type="button" onClick={() => go((playhead?.page ?? 0) + 1)} aria-label="Next frame" disabled={!video}>
            ›
          </button>
          <FrameInput playhead={playhead} total={total} onGo={go} />
          <span aria-label="Frames in the video">of {video ? total : '…'}</span>
          <label>
            Speed{' '}
            <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
              {SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}x
                </option>
              ))}
            </select>
          </label>
          {state.selectedId && !props.readOnly && !video?.vfr && (
            <button type="button" onClick={() => hideAt(!hiddenHere)}>
              {hiddenHere ? 'Show again' : 'Hide from here'}
            </button>
          )}
          {!props.readOnly &&
            frameQuestions
              .filter((q) => answerAt(state.answer.classifications, q.schemaId, page))
              .map((q) => (
                <button key={q.schemaId} type="button" onClick={() => stopAnswer(q.schemaId)}>
                  Stop {q.title} from here
                </button>
              ))}
          <FrameShown playhead={playhead} video={video} />
        </div>
        {video && (
          <Timeline
            total={total}
            playhead={playhead}
            tracks={tracksOf(state.answer.objects)}
            answers={frameQuestions.map((q) => ({
              id: q.schemaId,
              title: q.title,
              keyframes: state.answer.classifications
                .filter((c) => c.schemaId === q.schemaId)
                .map((c) => ({ page: c.page ?? 0, ...(c.interpolationStopped ? { hidden: true } : {}) }))
                .sort((a, b) => a.page - b.page),
            }))}
            selectedId={state.selectedId}
            onSeek={go}
          />
        )}
      </div>
    );
  };

  // A variable frame rate: frames are shown, but no tracks are drawn and frame questions are off.
  const vfr = video?.vfr === true;
  const ontology = useMemo(
    () =>
      vfr
        ? {
            ...props.ontology,
            tools: [],
            classifications: (props.ontology.classifications ?? []).filter((c) => !c.frameSpecific),
          }
        : props.ontology,
    [vfr, props.ontology],
  );

  const unreadable = fallback?.message ?? (loading.status === 'error' ? loading.message : undefined);
  if (unreadable !== undefined) {
    // Frames cannot be chosen without the picture: the whole-video questions only.
    return (
      <MediaUnreadable
        given={props}
        wholeAssetQuestionsOnly
        problem={unreadable}
        media={fallback && asset.url ? <FallbackPlayer url={asset.url} frameRate={fallback.frameRate} /> : undefined}
      />
    );
  }
  return (
    <ImageEditor
      {...props}
      ontology={ontology}
      imageUrl={asset.url}
      onPick={onPick ? (position, objectId) => onPick(objectId ? { objectId, page } : { position, page }) : undefined}
      pins={pinsOnPage(props.pins, page)}
      brushLayer={brushLayer}
      onBrushChange={brushChanged}
      paged={{ page, frame: painter, keys: VIDEO_KEYS, player }}
    />
  );
}

/** The Frame input: the frame asked for, counted from 1; a number typed goes there on Enter. */
function FrameInput(props: { playhead: Playhead | undefined; total: number; onGo(page: number): void }) {
  const page = usePlayhead(props.playhead, (p) => p.page);
  return <PartInput label="Frame" page={page} total={props.total} onGo={props.onGo} />;
}

/** The frame the canvas shows, and (for tests and benchmarks) the decoded frames held and the bytes read. */
function FrameShown({ playhead, video }: { playhead: Playhead | undefined; video: VideoFrames | undefined }) {
  const shown = usePlayhead(playhead, (p) => p.shown);
  return (
    <output
      aria-label="Frame shown"
      data-frame={shown}
      data-cached-frames={video?.cached}
      data-received-bytes={video?.received}
    >
      {shown >= 0 ? `frame ${shown + 1}` : ''}
    </output>
  );
}
