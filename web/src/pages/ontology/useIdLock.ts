import { useMetric } from '../../api/metrics';
import type { Project } from '../../api/types';
import { allItems } from './readable-ids';

/**
 * Whether the project has answers (the answers-per-question figures the database keeps: any
 * tool object or question answer), and so whether a saved item's id may still change. An item
 * added since the last save names nothing yet: its id stays editable.
 */
export function useIdLock(project: Project) {
  const answers = useMetric(project._id, 'AnswerDistribution');
  const d = answers.data;
  const active = !!d && (d.tools.some((t) => t.count > 0) || d.classifications.some((c) => c.total > 0));
  const saved = new Set(allItems(project.categorySchema).map((i) => String(i.schemaId)));
  return {
    active,
    locked: (item: { schemaId: string; __auto?: boolean }) => active && !item.__auto && saved.has(item.schemaId),
  };
}
