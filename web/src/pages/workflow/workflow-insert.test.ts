import { describe, expect, it } from 'vitest';
import type { Stage } from '../../api/types';
import { addStageAfter } from './workflow-insert';
import { tidyPositions } from './workflow-layout';
import { blankStage } from './workflow-model';

const at = (x: number, y = 0) => ({ x, y });
const CHAIN: Stage[] = [
  { id: 'Start', type: 'Start', next: ['Label'], position: at(0) },
  { id: 'Label', type: 'Label', next: ['Complete'], position: at(240) },
  { id: 'Complete', type: 'Complete', next: [], position: at(480) },
];
const byId = (stages: Stage[]) => new Map(stages.map((s) => [s.id, s]));

describe('a stage added after the selected one', () => {
  it('steps into a chain, wired both ways, and the stages to its right move over', () => {
    const review = blankStage('Review', 'Check', CHAIN);
    const out = byId(addStageAfter(CHAIN, 'Label', review));
    expect(out.get('Label')?.next).toEqual(['Check']);
    // Accepted goes on where Label went; Rejected back to the Label stage it follows.
    expect(out.get('Check')?.next).toEqual(['Complete', 'Label']);
    expect(out.get('Check')?.position).toEqual(at(480));
    expect(out.get('Complete')?.position).toEqual(at(720));
    expect(out.get('Start')?.position).toEqual(at(0));
  });

  it('takes an open output of a Review stage as a branch below', () => {
    const stages: Stage[] = [...CHAIN, { id: 'Rev', type: 'Review', next: ['Complete', ''], position: at(240, 200) }];
    const hold = blankStage('Hold', 'Parked', stages);
    const out = byId(addStageAfter(stages, 'Rev', hold));
    expect(out.get('Rev')?.next).toEqual(['Complete', 'Parked']);
    expect(out.get('Parked')?.position?.y).toBeGreaterThan(200);
  });

  it('adds a Logic output before the else, moving the conditions that name later outputs', () => {
    const logic: Stage = {
      id: 'Route',
      type: 'Logic',
      next: ['Label', 'Complete'],
      logic: {
        conditions: [
          { type: 'RandomSample', index: 0 },
          { type: 'Batch', index: 1 },
        ],
      },
      position: at(240, 300),
    };
    const stages = [...CHAIN, logic];
    const out = byId(addStageAfter(stages, 'Route', blankStage('Label', 'Second look', stages)));
    expect(out.get('Route')?.next).toEqual(['Label', 'Second-look', 'Complete']);
    expect(out.get('Route')?.logic?.conditions?.map((c) => c.index)).toEqual([0, 2]);
  });

  it('lands unconnected without a selection, or after a stage with no outputs', () => {
    const hold = blankStage('Hold', 'Parked', CHAIN);
    expect(addStageAfter(CHAIN, undefined, hold)).toEqual([...CHAIN, hold]);
    expect(addStageAfter(CHAIN, 'Complete', hold)).toEqual([...CHAIN, hold]);
  });
});

describe('the tidy layout', () => {
  it('lays the flow out left to right, a route back taking no part', () => {
    const stages: Stage[] = [
      { id: 'Start', type: 'Start', next: ['Label'], position: at(500, 500) },
      { id: 'Label', type: 'Label', next: ['Review'], position: at(0, 900) },
      { id: 'Review', type: 'Review', next: ['Complete', 'Label'], position: at(100, 0) },
      { id: 'Complete', type: 'Complete', next: [], position: at(50, 50) },
    ];
    const xs = tidyPositions(stages).map((s) => s.position?.x ?? 0);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(new Set(xs).size).toBe(4);
    const ys = tidyPositions(stages).map((s) => s.position?.y);
    expect(new Set(ys).size).toBe(1);
  });
});
