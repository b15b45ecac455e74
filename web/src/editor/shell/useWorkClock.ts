import { useEffect, useMemo, useRef } from 'react';
import { activity, startClock, tick, type WorkClock } from '../core/work-clock';

const EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;

/**
 * Counts the time a person works on the open task (see model/timer.ts). `read()` answers the
 * milliseconds to send as `duration` and the idle milliseconds left out.
 */
export function useWorkClock(idleTimeoutSeconds: number | undefined, resetKey: string | undefined) {
  const clock = useRef<WorkClock>(startClock(Date.now()));
  const timeoutMs = (idleTimeoutSeconds ?? 0) * 1000;
  useEffect(() => {
    clock.current = startClock(Date.now());
  }, [resetKey]);
  useEffect(() => {
    const visible = () => document.visibilityState === 'visible';
    let last = 0;
    const onActivity = () => {
      const now = Date.now();
      if (now - last < 250) return; // pointermove fires often; a quarter second is precise enough
      last = now;
      clock.current = activity(clock.current, now, timeoutMs, visible());
    };
    const onVisibility = () => (clock.current = tick(clock.current, Date.now(), timeoutMs, !visible()));
    for (const e of EVENTS) window.addEventListener(e, onActivity, { passive: true });
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      for (const e of EVENTS) window.removeEventListener(e, onActivity);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [timeoutMs]);
  // One object per task and timeout, so effects that hold it do not re-run on every render.
  return useMemo(
    () => ({
      read(): { durationMs: number; idleMs: number } {
        clock.current = tick(clock.current, Date.now(), timeoutMs, document.visibilityState === 'visible');
        return { durationMs: Math.round(clock.current.workedMs), idleMs: Math.round(clock.current.idleMs) };
      },
    }),
    [timeoutMs],
  );
}
