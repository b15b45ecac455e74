import { describe, expect, it } from 'vitest';
import type { Stage, StageType } from '../../api/types';
import { sortByFlow, stagesInFlowOrder } from './flow-order';

const stage = (id: string, type: StageType, next: string[] = []): Stage => ({ id, type, next });
const ids = (stages: readonly Stage[]) => stages.map((s) => s.id);

describe('stagesInFlowOrder', () => {
  it('follows the routes from Start, not the stored order', () => {
    const stored = [
      stage('Complete', 'Complete'),
      stage('Notify', 'Webhook', ['Complete']),
      stage('Review', 'Review', ['Notify', 'Label']),
      stage('Start', 'Start', ['Label']),
      stage('Label', 'Label', ['Review']),
    ];
    expect(ids(stagesInFlowOrder(stored))).toEqual(['Start', 'Label', 'Review', 'Notify', 'Complete']);
  });

  it('goes breadth-first: every output of a stage before what follows them, in `next` order', () => {
    const stored = [
      stage('Deep', 'Label', ['Done']),
      stage('Done', 'Complete'),
      stage('Route', 'Logic', ['Fast', 'Slow']),
      stage('Slow', 'Label', ['Deep']),
      stage('Fast', 'Label', ['Done']),
      stage('Start', 'Start', ['Route']),
    ];
    expect(ids(stagesInFlowOrder(stored))).toEqual(['Start', 'Route', 'Fast', 'Slow', 'Done', 'Deep']);
  });

  it('meets each stage once, however many routes lead back to it', () => {
    const stored = [
      stage('Start', 'Start', ['Label']),
      stage('Label', 'Label', ['Review']),
      stage('Review', 'Review', ['Complete', 'Label']),
      stage('Complete', 'Complete'),
    ];
    expect(ids(stagesInFlowOrder(stored))).toEqual(['Start', 'Label', 'Review', 'Complete']);
  });

  it('puts stages no route reaches at the end in their stored order, and skips empty or unknown routes', () => {
    const stored = [
      stage('Parked', 'Hold', ['Complete']),
      stage('Review', 'Review', ['', 'Label']),
      stage('Start', 'Start', ['Label', 'Gone']),
      stage('Archive', 'Archive'),
      stage('Label', 'Label', ['Complete']),
      stage('Complete', 'Complete'),
    ];
    expect(ids(stagesInFlowOrder(stored))).toEqual(['Start', 'Label', 'Complete', 'Parked', 'Review', 'Archive']);
  });

  it('keeps the stored order when there is no Start stage', () => {
    const stored = [stage('B', 'Label', ['A']), stage('A', 'Complete')];
    expect(ids(stagesInFlowOrder(stored))).toEqual(['B', 'A']);
    expect(stagesInFlowOrder([])).toEqual([]);
  });
});

describe('sortByFlow', () => {
  it('sorts items naming stages by the flow; a stage the workflow lacks goes last, in its order', () => {
    const stages = [
      stage('Complete', 'Complete'),
      stage('Start', 'Start', ['Label']),
      stage('Label', 'Label', ['Complete']),
    ];
    const counts = [
      { stageId: 'Old', count: 1 },
      { stageId: 'Complete', count: 3 },
      { stageId: 'Label', count: 2 },
      { stageId: 'Older', count: 4 },
      { stageId: 'Start', count: 0 },
    ];
    expect(sortByFlow(counts, stages, (c) => c.stageId).map((c) => c.stageId)).toEqual([
      'Start',
      'Label',
      'Complete',
      'Old',
      'Older',
    ]);
    expect(counts[0]?.stageId).toBe('Old');
  });
});
