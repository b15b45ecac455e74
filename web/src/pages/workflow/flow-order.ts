import type { Stage } from '../../api/types';

/**
 * The stages in the order a task meets them: from the Start stage, along each stage's routes
 * (`next`, in its order) breadth-first, each stage once; stages no route reaches (consensus
 * copies, a stage not connected yet) follow in their stored order. Charts and lists that name
 * stages read in this order, not in the order the workflow happens to be stored.
 */
export function stagesInFlowOrder<S extends Pick<Stage, 'id' | 'type' | 'next'>>(stages: readonly S[]): S[] {
  const byId = new Map(stages.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const order: S[] = [];
  const queue = stages.filter((s) => s.type === 'Start');
  for (const s of queue) seen.add(s.id);
  while (queue.length > 0) {
    const stage = queue.shift() as S;
    order.push(stage);
    for (const id of stage.next ?? []) {
      const target = byId.get(id);
      if (!target || seen.has(id)) continue;
      seen.add(id);
      queue.push(target);
    }
  }
  return [...order, ...stages.filter((s) => !seen.has(s.id))];
}

/**
 * `items` that each name a stage, sorted by that stage's place in the flow; items of a stage the
 * workflow no longer has keep their order after the others (the sort is stable).
 */
export function sortByFlow<T>(items: readonly T[], stages: readonly Stage[], stageOf: (item: T) => string): T[] {
  const rank = new Map(stagesInFlowOrder(stages).map((s, i) => [s.id, i]));
  const place = (item: T) => rank.get(stageOf(item)) ?? rank.size;
  return [...items].sort((a, b) => place(a) - place(b));
}
