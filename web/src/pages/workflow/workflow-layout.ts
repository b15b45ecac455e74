import dagre from '@dagrejs/dagre';
import type { Stage } from '../../api/types';
import { stagesInFlowOrder } from './flow-order';

/** A stage box's size on the diagram, as drawn (or a fair guess before it is). */
export interface BoxSize {
  width: number;
  height: number;
}

const GUESS: BoxSize = { width: 190, height: 72 };

/**
 * Whether the route from output `index` of `from` to `to` goes back against the flow (Review's
 * Rejected to its Label stage, a Logic loop): the target comes no later than the source in the
 * order a task meets the stages.
 */
export function isBackEdge(rank: ReadonlyMap<string, number>, from: string, to: string): boolean {
  return (rank.get(to) ?? Infinity) <= (rank.get(from) ?? -Infinity);
}

export function flowRanks(stages: readonly Stage[]): Map<string, number> {
  return new Map(stagesInFlowOrder(stages).map((s, i) => [s.id, i]));
}

/**
 * Tidy positions for every stage, by a layered graph layout (dagre): the flow from left to
 * right, one column per step, outputs fanned out above and below; routes back against the flow
 * take no part in the layering, so a Rejected route never pushes its Label stage to the right.
 * The first output of a stage (Review's Accepted) weighs more, so the main line stays straight.
 */
export function tidyPositions(
  stages: readonly Stage[],
  sizeOf: (id: string) => BoxSize | undefined = () => undefined,
): Stage[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 36, ranksep: 70, marginx: 40, marginy: 40 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of stages) g.setNode(s.id, { ...(sizeOf(s.id) ?? GUESS) });
  const rank = flowRanks(stages);
  const ids = new Set(stages.map((s) => s.id));
  for (const s of stages) {
    (s.next ?? []).forEach((target, index) => {
      if (!ids.has(target) || target === s.id || isBackEdge(rank, s.id, target)) return;
      g.setEdge(s.id, target, { weight: index === 0 ? 4 : 1, minlen: 1 });
    });
  }
  dagre.layout(g);
  return stages.map((s) => {
    const node = g.node(s.id) as { x: number; y: number; width: number; height: number };
    // dagre answers centres; the diagram places boxes by their top-left corner.
    return { ...s, position: { x: Math.round(node.x - node.width / 2), y: Math.round(node.y - node.height / 2) } };
  });
}
