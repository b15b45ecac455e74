import type { TaskHistoryEntry } from '../api/tasks';
import { spoken } from '../pages/tasks/TaskTimeline';

/** One person's labelling of a task: their submits out of Label stages and the work time in them. */
export interface LabelWork {
  by: string;
  ms: number;
  submits: number;
}

/**
 * Who labelled a task and how long it took them, from its history: every submit out of a Label
 * stage (a returned task's second submit adds to the first), in the order they first submitted.
 * The time is the editor's work clock the history keeps per stage visit, idle time left out.
 */
export function labelWork(
  history: readonly Pick<TaskHistoryEntry, 'stageType' | 'trigger' | 'completedBy' | 'duration' | 'isSkipped'>[],
): LabelWork[] {
  const byPerson = new Map<string, LabelWork>();
  for (const e of history) {
    if (e.stageType !== 'Label' || e.trigger !== 'submit' || e.isSkipped || !e.completedBy) continue;
    const work = byPerson.get(e.completedBy) ?? { by: e.completedBy, ms: 0, submits: 0 };
    work.ms += e.duration;
    work.submits += 1;
    byPerson.set(e.completedBy, work);
  }
  return [...byPerson.values()];
}

/** "labeler@example.com in 1 min 5 s (2 submits)", or each person with their time. */
export function labelWorkWords(work: readonly LabelWork[]): string {
  if (work.length === 0) return 'nobody yet';
  const submits = (w: LabelWork) => (w.submits > 1 ? `, ${w.submits} submits` : '');
  if (work.length === 1 && work[0]) {
    const w = work[0];
    return `${w.by} in ${spoken(w.ms)}${w.submits > 1 ? ` (${w.submits} submits)` : ''}`;
  }
  return work.map((w) => `${w.by} (${spoken(w.ms)}${submits(w)})`).join(', ');
}
