import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { annotate, type LayerLink, saveDraftOnLeave, type TaskAnswerBody } from '../api/work';
import type { SessionView } from '../auth/session-api';
import { SESSION_KEY } from '../auth/useSession';
import { DRAFT_DELAY_MS, type DraftState, unsentWork } from '../editor/core/drafts';

interface Clock {
  read(): { durationMs: number; idleMs: number };
}

/**
 * Drafts of one task: the answer is saved (annotate without nextStage, the task stays in its
 * stage) a couple of seconds after a change, when the page goes away (pagehide, a keepalive
 * fetch) and when the editor closes. Each save carries the work time since the last one as
 * `duration`, so the task's time adds up to what the clock counted, however it was sent.
 */
export function useDrafts(
  taskId: string,
  clock: Clock,
  enabled: boolean,
  /** The painted layer's link when it changed since the last save (uploaded then), else undefined. */
  brushUrl: () => Promise<LayerLink | undefined> = async () => undefined,
) {
  const queryClient = useQueryClient();
  const pending = useRef<TaskAnswerBody | null>(null);
  const sentMs = useRef(0);
  const timer = useRef<number | undefined>(undefined);
  const inflight = useRef<Promise<unknown>>(Promise.resolve());
  const [state, setState] = useState<DraftState>('clean');
  const [savedAt, setSavedAt] = useState<Date | undefined>(undefined);

  /** The work time not sent yet, marked as sent. */
  const takeDuration = useCallback(() => {
    const unsent = unsentWork(sentMs.current, clock.read().durationMs);
    sentMs.current = unsent.sentMs;
    return unsent.durationMs;
  }, [clock]);

  const flush = useCallback(() => {
    window.clearTimeout(timer.current);
    timer.current = undefined;
    const answer = pending.current;
    if (!answer) return inflight.current;
    pending.current = null;
    setState('saving');
    const run = inflight.current.then(async () => annotate(taskId, answer, takeDuration(), false, await brushUrl()));
    inflight.current = run.then(
      () => {
        if (!pending.current) setState('saved');
        setSavedAt(new Date());
      },
      () => {
        // Kept for the next try: the next change, the page leaving, or the submit.
        pending.current ??= answer;
        setState('failed');
      },
    );
    return inflight.current;
  }, [taskId, takeDuration, brushUrl]);

  const changed = useCallback(
    (answer: TaskAnswerBody) => {
      if (!enabled) return;
      pending.current = answer;
      setState('unsaved');
      timer.current ??= window.setTimeout(() => void flush(), DRAFT_DELAY_MS);
    },
    [enabled, flush],
  );

  /** Before a submit or review: no draft may land after it. Answers the unsent work time. */
  const settle = useCallback(async () => {
    window.clearTimeout(timer.current);
    timer.current = undefined;
    pending.current = null;
    await inflight.current;
    setState('clean');
    return takeDuration();
  }, [takeDuration]);

  useEffect(() => {
    const leave = () => {
      const answer = pending.current;
      if (!answer) return;
      const csrf = queryClient.getQueryData<SessionView | null>(SESSION_KEY)?.csrfToken;
      const unsent = unsentWork(sentMs.current, clock.read().durationMs);
      if (saveDraftOnLeave(taskId, answer, unsent.durationMs, csrf)) {
        sentMs.current = unsent.sentMs;
        pending.current = null;
      }
    };
    window.addEventListener('pagehide', leave);
    return () => {
      window.removeEventListener('pagehide', leave);
      // Leaving the task inside the console (a link, the back button): save what is pending.
      if (pending.current) void flush();
    };
  }, [taskId, clock, queryClient, flush]);

  return { state, savedAt, changed, flush, settle };
}
