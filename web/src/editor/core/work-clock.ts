/**
 * Time on a task as the API's `duration` means it: time the person was working. A stretch with
 * no input longer than the project's idle timeout counts only up to the timeout, and time with
 * the tab hidden does not count at all.
 */
export interface WorkClock {
  /** Milliseconds counted as work so far. */
  workedMs: number;
  /** Milliseconds not counted (idle past the timeout or hidden). */
  idleMs: number;
  /** When the clock last accounted for time. */
  lastTick: number;
  /** When the person last did something. */
  lastActivity: number;
}

export function startClock(now: number): WorkClock {
  return { workedMs: 0, idleMs: 0, lastTick: now, lastActivity: now };
}

/** Accounts for the time since the last tick. `idleTimeoutMs` 0 means idle time always counts. */
export function tick(c: WorkClock, now: number, idleTimeoutMs: number, visible: boolean): WorkClock {
  const elapsed = Math.max(0, now - c.lastTick);
  if (!visible) return { ...c, idleMs: c.idleMs + elapsed, lastTick: now };
  if (idleTimeoutMs <= 0) return { ...c, workedMs: c.workedMs + elapsed, lastTick: now };
  const activeUntil = c.lastActivity + idleTimeoutMs;
  const counted = Math.max(0, Math.min(now, activeUntil) - c.lastTick);
  return { ...c, workedMs: c.workedMs + counted, idleMs: c.idleMs + (elapsed - counted), lastTick: now };
}

export function activity(c: WorkClock, now: number, idleTimeoutMs: number, visible: boolean): WorkClock {
  return { ...tick(c, now, idleTimeoutMs, visible), lastActivity: now };
}
