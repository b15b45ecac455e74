import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { type Stage, STAGE_TYPES, type StageType } from '../../src/schemas/stage.js';
import { BEHAVIORS } from '../../src/workflow/behaviors/index.js';
import type { ExitOutcome, ExitRequest, StageBehavior } from '../../src/workflow/stage-behavior.js';
import type { Trigger } from '../../src/workflow/types.js';

/*
 * The exit side of StageBehavior, held over every registered behaviour and every way of asking a
 * task to leave: nothing here names a concrete behaviour, so a new stage type is held to the same
 * contract the day it is registered.
 */

const REQUESTS: ExitRequest[] = [
  { kind: 'submit', byPlugin: false },
  { kind: 'submit', byPlugin: true },
  { kind: 'review', decision: 'Accepted' },
  { kind: 'review', decision: 'Rejected' },
  { kind: 'forward' },
  { kind: 'skip' },
  { kind: 'delivered' },
];

/** Every trigger a history entry may carry (the Trigger type, as values). */
const TRIGGERS: Record<Trigger, true> = {
  submit: true,
  review: true,
  auto: true,
  webhook: true,
  logic: true,
  consensus: true,
  forward: true,
  plugin: true,
  requeue: true,
  skip: true,
};

const registered = Object.entries(BEHAVIORS) as [StageType, StageBehavior][];

function stageOf(type: StageType, next: string[] | undefined): Stage {
  const stage: Stage = { id: `the-${type.toLowerCase()}`, type, ...(next ? { next } : {}) };
  return deepFreeze(stage);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The outcome, or the AppError it threw (anything else fails the test). */
function attempt(behavior: StageBehavior, stage: Stage, request: ExitRequest): ExitOutcome | AppError {
  try {
    return behavior.exit(stage, request);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

const describeRequest = (r: ExitRequest) => JSON.stringify(r);

describe('stage exits: every registered behaviour', () => {
  it('is registered for every stage type', () => {
    expect(registered.map(([type]) => type).sort()).toEqual([...STAGE_TYPES].sort());
  });

  for (const [type, behavior] of registered) {
    describe(type, () => {
      for (const request of REQUESTS) {
        it(`answers ${describeRequest(request)} by leaving through an output, staying with a record, or refusing in words`, () => {
          const stage = stageOf(type, ['out-0', 'out-1']);
          const outcome = behavior.exit(stage, request);
          if (outcome.kind === 'leave') {
            expect(stage.next).toContain(outcome.to);
            expect(TRIGGERS[outcome.record.trigger]).toBe(true);
          } else if (outcome.kind === 'stay') {
            expect(TRIGGERS[outcome.record.trigger]).toBe(true);
          } else {
            expect(outcome.kind).toBe('refuse');
            expect(outcome.reason.length).toBeGreaterThan(10);
          }
          // Deciding is pure: the same question gets the same answer (the stage is frozen above).
          expect(behavior.exit(stage, request)).toEqual(outcome);
        });

        it(`answers ${describeRequest(request)} without outputs by a 409 naming the stage, never by leaving nowhere`, () => {
          const withOutputs = attempt(behavior, stageOf(type, ['out-0', 'out-1']), request);
          const without = attempt(behavior, stageOf(type, undefined), request);
          if (withOutputs instanceof AppError) throw withOutputs;
          if (withOutputs.kind === 'leave') {
            expect(without).toBeInstanceOf(AppError);
            const err = without as AppError;
            expect(err.status).toBe(409);
            expect(err.message).toContain(`the-${type.toLowerCase()}`);
          } else {
            // Staying and refusing do not depend on where the stage leads.
            expect(without).toEqual(withOutputs);
          }
        });
      }

      it('refuses a review decision unless accepting and rejecting leave by different outputs', () => {
        const stage = stageOf(type, ['out-0', 'out-1']);
        const accepted = behavior.exit(stage, { kind: 'review', decision: 'Accepted' });
        const rejected = behavior.exit(stage, { kind: 'review', decision: 'Rejected' });
        expect(accepted.kind).toBe(rejected.kind);
        if (accepted.kind === 'leave' && rejected.kind === 'leave') {
          expect(accepted.to).not.toBe(rejected.to);
          expect(accepted.record.reviewStatus).toBe('Accepted');
          expect(rejected.record.reviewStatus).toBe('Rejected');
        }
      });
    });
  }
});

/**
 * The exits as docs/workflow.md states them ("How a task leaves a stage"): the output taken (0,
 * 1), `stay`, or `-` for a refusal, with the history entry's trigger.
 */
const DOCUMENTED: Record<StageType, Record<string, string>> = {
  Start: { submit: '-', pluginSubmit: '-', accept: '-', reject: '-', forward: '0 forward', skip: '-', delivered: '-' },
  Label: {
    submit: '0 submit',
    pluginSubmit: '0 submit',
    accept: '-',
    reject: '-',
    forward: '-',
    skip: 'stay skip',
    delivered: '-',
  },
  Review: {
    submit: '0 review Accepted',
    pluginSubmit: '0 review Accepted',
    accept: '0 review Accepted',
    reject: '1 review Rejected',
    forward: '-',
    skip: '-',
    delivered: '-',
  },
  Hold: {
    submit: '0 forward',
    pluginSubmit: '0 forward',
    accept: '-',
    reject: '-',
    forward: '0 forward',
    skip: '-',
    delivered: '-',
  },
  Logic: { submit: '-', pluginSubmit: '-', accept: '-', reject: '-', forward: '-', skip: '-', delivered: '-' },
  Webhook: {
    submit: '-',
    pluginSubmit: '-',
    accept: '-',
    reject: '-',
    forward: '-',
    skip: '-',
    delivered: '0 webhook',
  },
  Plugin: { submit: '-', pluginSubmit: '0 plugin', accept: '-', reject: '-', forward: '-', skip: '-', delivered: '-' },
  Consensus: { submit: '-', pluginSubmit: '-', accept: '-', reject: '-', forward: '-', skip: '-', delivered: '-' },
  Complete: { submit: '-', pluginSubmit: '-', accept: '-', reject: '-', forward: '-', skip: '-', delivered: '-' },
  Archive: { submit: '-', pluginSubmit: '-', accept: '-', reject: '-', forward: '-', skip: '-', delivered: '-' },
};

const COLUMNS: Record<string, ExitRequest> = {
  submit: { kind: 'submit', byPlugin: false },
  pluginSubmit: { kind: 'submit', byPlugin: true },
  accept: { kind: 'review', decision: 'Accepted' },
  reject: { kind: 'review', decision: 'Rejected' },
  forward: { kind: 'forward' },
  skip: { kind: 'skip' },
  delivered: { kind: 'delivered' },
};

function summary(stage: Stage, outcome: ExitOutcome): string {
  if (outcome.kind === 'refuse') return '-';
  const where = outcome.kind === 'stay' ? 'stay' : String(stage.next?.indexOf(outcome.to));
  return [where, outcome.record.trigger, outcome.record.reviewStatus].filter(Boolean).join(' ');
}

describe('stage exits: the documented table', () => {
  for (const [type, behavior] of registered) {
    it(`${type} leaves as documented`, () => {
      const stage = stageOf(type, ['out-0', 'out-1']);
      const actual = Object.fromEntries(
        Object.entries(COLUMNS).map(([column, request]) => [column, summary(stage, behavior.exit(stage, request))]),
      );
      expect(actual).toEqual(DOCUMENTED[type]);
    });
  }
});
