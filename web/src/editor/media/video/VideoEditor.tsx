import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import type { EditorAnswer } from '../../core/answer';
import { answerAt, answersAt, keyframeStepFrom, setAnswersAt, setKeyframe, tracksOf } from '../../core/tracks';
import { typingInField } from '../../shell/useEditorKeys';
import { VIDEO_KEYS } from '../../shell/editor-keys';
import { ClassificationsOnly } from '../../shell/ClassificationsOnly';
import { ImageEditor, type PagedEditing } from '../image/ImageEditor';
import type { FrameSource } from '../image/ImageCanvas';
import { CodecError, VideoFrames } from './mp4-frames';
import { FallbackPlayer } from './FallbackPlayer';
import { openSource } from './byte-source';
import { useOpened } from '../useOpened';
import { PartInput } from '../../shell/PartInput';
import { Timeline } from './Timeline';

const SPEEDS = [0.25, 0.5, 1, 1.5, 2, 4];

/**
 * The video editor: the image editor's tools, keys, pan and zoom, undo and drafts on the frame
 * shown, and a player under it (Frame input, stepping, play at a speed, the timeline of tracks).
 */
export function VideoSurfaceEditor({ asset, onPick, ...props }: SurfaceEditorProps) {
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
  const [page, setPage] = useState(0);
  const [shownPage, setShownPage] = useState(-1);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [frame, setFrame] = useState<FrameSource>({ canvas: null, width: 0, height: 0, version: 0 });
  const [frameError, setFrameError] = useState<string | undefined>(undefined);
  const canvas = useMemo(() => (video ? document.createElement('canvas') : null), [video]);
  // The direction of play (or of the last step): the frames read ahead lie that way.
  const direction = useRef<1 | -1>(1);
  const lastPage = useRef(0);
  const editing = useRef<PagedEditing | undefined>(undefined);
  const total = video?.frameTotal ?? 1;

  const go = useCallback((to: number) => setPage(Math.max(0, Math.min(total - 1, Math.round(to)))), [total]);

  // Draws the frame asked for once it is decoded; a newer request wins.
  useEffect(() => {
    if (!video || !canvas) return;
    let live = true;
    if (page !== lastPage.current) direction.current = page > lastPage.current ? 1 : -1;
    lastPage.current = page;
    video
      .frame(page)
      .then((f) => {
        if (!live) return;
        if (canvas.width !== video.width) canvas.width = video.width;
        if (canvas.height !== video.height) canvas.height = video.height;
        canvas.getContext('2d')!.drawImage(f, 0, 0, video.width, video.height);
        setFrame((was) => ({ canvas, width: video.width, height: video.height, version: was.version + 1 }));
        setShownPage(page);
        setFrameError(undefined);
        video.readAhead(page, direction.current);
      })
      .catch((e: unknown) => live && setFrameError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [video, canvas, page]);

  // Playing: the next frame when its time has come and the one before is shown.
  useEffect(() => {
    if (!playing || !video) return;
    if (shownPage >= total - 1) return setPlaying(false);
    const timer = window.setTimeout(() => go(shownPage + 1), 1000 / (video.frameRate * speed));
    return () => window.clearTimeout(timer);
  }, [playing, shownPage, video, speed, total, go]);

  const keyframeStep = (direction: 1 | -1) => {
    const e = editing.current;
    if (!e?.selectedId) return;
    const target = keyframeStepFrom(e.answer.objects, e.selectedId, page, direction);
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
      else if (e.key === 'ArrowRight' || e.key === '.' || e.key === '>') go(page + step);
      else if (e.key === 'ArrowLeft' || e.key === ',' || e.key === '<') go(page - step);
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
        {frameError && (
          <p className="video-error" role="alert">
            {frameError}
          </p>
        )}
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
          <button type="button" onClick={() => go(page - 1)} aria-label="Previous frame" disabled={!video}>
            ‹
          </button>
          <button type="button" onClick={() => go(page + 1)} aria-label="Next frame" disabled={!video}>
            ›
          </button>
          <PartInput label="Frame" page={page} total={total} onGo={go} />
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
          <output
            aria-label="Frame shown"
            data-frame={shownPage}
            data-cached-frames={video?.cached}
            data-received-bytes={video?.received}
          >
            {shownPage >= 0 ? `frame ${shownPage + 1}` : ''}
          </output>
        </div>
        {video && (
          <Timeline
            total={total}
            page={page}
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

  if (loading.status === 'error' || fallback) {
    // The questions, the answer saved so far and the stage's buttons stay: the task can be
    // answered, skipped or sent on although its video cannot be shown.
    // Frames cannot be chosen without the picture: the whole-video questions only.
    return (
      <ClassificationsOnly
        ontology={{
          ...props.ontology,
          tools: [],
          classifications: (props.ontology.classifications ?? []).filter((c) => !c.frameSpecific),
        }}
        initial={props.initial}
        onChange={props.onChange}
        problems={props.problems}
        readOnly={props.readOnly}
        actions={props.actions}
        aside={props.aside}
        message="a video"
        problem={fallback?.message ?? (loading.status === 'error' ? loading.message : undefined)}
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
      paged={{ page, frame, keys: VIDEO_KEYS, player }}
    />
  );
}
