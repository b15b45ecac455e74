import { useEffect } from 'react';
import type { FrameSource } from '../image/ImageCanvas';
import type { VideoFrames } from './mp4-frames';
import type { Playhead } from './playhead';

/**
 * The canvas a video's frames are painted on, outside React: a decoded frame is drawn on it and
 * the surface showing it is told to repaint, with no component rendered for the picture.
 */
export class FramePainter implements FrameSource {
  readonly canvas: HTMLCanvasElement;
  readonly version = 0;
  private readonly context: CanvasRenderingContext2D;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.canvas = document.createElement('canvas');
    this.canvas.width = width;
    this.canvas.height = height;
    this.context = this.canvas.getContext('2d', { alpha: false })!;
  }

  subscribe = (repaint: () => void): (() => void) => {
    this.listeners.add(repaint);
    return () => this.listeners.delete(repaint);
  };

  draw(frame: VideoFrame) {
    this.context.drawImage(frame, 0, 0, this.width, this.height);
    this.repaint();
  }

  /** The surface draws the frame again (with what lies over it, a frame's brush layer come in). */
  repaint() {
    for (const repaint of this.listeners) repaint();
  }
}

/**
 * Paints the frame the playhead asks for as soon as it is decoded (at once when it is held),
 * reading ahead in the direction it moves. A frame decoded after the playhead moved on is still
 * painted when it lies between the one shown and the one asked for: a decoder behind the clock
 * of play shows the frames it has instead of none.
 */
export function useFramePainting(
  video: VideoFrames | undefined,
  playhead: Playhead | undefined,
  painter: FramePainter | undefined,
  onError: (message: string | undefined) => void,
) {
  useEffect(() => {
    if (!video || !playhead || !painter) return;
    let live = true;
    let asked = -1;
    let direction: 1 | -1 = 1;
    let failed = false;
    const show = (index: number, frame: VideoFrame) => {
      painter.draw(frame);
      playhead.drawn(index);
      if (failed) {
        failed = false;
        onError(undefined);
      }
      video.readAhead(index, direction);
    };
    const follow = () => {
      const page = playhead.page;
      if (page === asked) return;
      if (asked >= 0) direction = page > asked ? 1 : -1;
      asked = page;
      const held = video.held(page);
      if (held) return show(page, held);
      video.frame(page).then(
        (frame) => {
          if (!live) return;
          const wanted = video.held(asked);
          if (wanted) return show(asked, wanted);
          const shown = playhead.shown;
          if (page === asked || (page - shown) * (asked - page) > 0) show(page, frame);
        },
        (e: unknown) => {
          if (!live || page !== asked) return;
          failed = true;
          onError(e instanceof Error ? e.message : String(e));
        },
      );
    };
    follow();
    const stop = playhead.subscribe(follow);
    return () => {
      live = false;
      stop();
    };
  }, [video, playhead, painter]);
}

/**
 * Playing: on each animation frame the playhead goes to the frame due by the clock (frames not
 * decoded in time are passed over, as a player keeps time); a frame asked for by the labeler
 * meanwhile (a step, a jump) restarts the clock from there. Stops on the last frame.
 */
export function usePlayback(
  video: VideoFrames | undefined,
  playhead: Playhead | undefined,
  playing: boolean,
  speed: number,
  onEnd: () => void,
) {
  useEffect(() => {
    if (!playing || !video || !playhead) return;
    const last = playhead.total - 1;
    if (playhead.page >= last) return onEnd();
    const perMs = (video.frameRate * speed) / 1000;
    let expected = playhead.page;
    let from = expected;
    let start: number | undefined;
    let raf = 0;
    const tick = (now: number) => {
      // The first tick, or the labeler moved the playhead: the clock starts from where it is.
      if (start === undefined || playhead.page !== expected) [from, start] = [playhead.page, now];
      const next = from + Math.floor((now - start) * perMs);
      if (next >= last) {
        playhead.go(last);
        return onEnd();
      }
      playhead.go(next);
      expected = playhead.page;
      raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [playing, speed, video, playhead]);
}
