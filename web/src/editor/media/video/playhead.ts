import { useSyncExternalStore } from 'react';

/**
 * Where the player is, outside React: the frame asked for (a step, a typed jump, the clock of
 * play) and the frame whose picture is on the canvas. Components that depend on the frame read
 * it with `usePlayhead`, so a frame change renders them and nothing else.
 */
export class Playhead {
  /** The frame asked for, 0-based. */
  page = 0;
  /** The frame drawn on the canvas, -1 before the first. */
  shown = -1;
  private readonly listeners = new Set<() => void>();

  constructor(readonly total: number) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Asks for a frame (clamped to the video's). */
  go(page: number) {
    const to = Math.max(0, Math.min(this.total - 1, Math.round(page)));
    if (to === this.page) return;
    this.page = to;
    this.emit();
  }

  /** Says which frame the canvas now shows. */
  drawn(page: number) {
    if (page === this.shown) return;
    this.shown = page;
    this.emit();
  }

  private emit() {
    for (const listener of [...this.listeners]) listener();
  }
}

const NOWHERE = new Playhead(1);

/** A value read from the playhead, the component rendered again only when it changes. */
export function usePlayhead<T extends number | boolean>(playhead: Playhead | undefined, read: (p: Playhead) => T): T {
  const p = playhead ?? NOWHERE;
  return useSyncExternalStore(p.subscribe, () => read(p));
}
