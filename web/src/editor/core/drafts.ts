/**
 * Drafts of an answer: saved (the task stays in its stage) a moment after a change, when the
 * page goes away and when the editor closes. Each save carries the work time since the last one,
 * so a task's time adds up to what the work clock counted, however it was sent.
 */

/** A change is saved as a draft this long after it, at most this often while changes go on. */
export const DRAFT_DELAY_MS = 2000;

/** Where the drafts of the open task stand, as the page says it. */
export type DraftState = 'clean' | 'unsaved' | 'saving' | 'saved' | 'failed';

/**
 * The work time to send with the next save: what the clock counted beyond what was sent, and the
 * new total sent. Never negative (a clock read twice in one millisecond, a save that failed).
 */
export function unsentWork(sentMs: number, workedMs: number): { durationMs: number; sentMs: number } {
  return { durationMs: Math.max(0, workedMs - sentMs), sentMs: Math.max(sentMs, workedMs) };
}
