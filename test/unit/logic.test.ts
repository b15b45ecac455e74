import { describe, expect, it } from 'vitest';
import { makeSampler } from '../../src/adapters/random.js';
import type { LogicCondition, Stage } from '../../src/schemas/stage.js';
import { evaluateLogic, parseToolFilter, schemaIdsIn, type LogicInputs } from '../../src/workflow/logic.js';
import type { TaskAnswer, TaskFacts } from '../../src/workflow/types.js';

/** A Logic stage with one condition at index 0: 'hit' when it holds, else the else output 'miss'. */
const stageWith = (condition: Omit<LogicCondition, 'index'>, more: LogicCondition[] = []): Stage => ({
  id: 'route',
  type: 'Logic',
  next: ['hit', 'other', 'miss'],
  logic: { conditions: [{ ...condition, index: 0 }, ...more] },
});

interface Known {
  answer?: Partial<TaskAnswer>;
  submitter?: string;
  labelMs?: number;
  batches?: { id: string; name: string }[];
  issueCodes?: string[];
  draw?: number;
  externalId?: string;
}

function inputs(k: Known = {}): LogicInputs {
  const facts: TaskFacts = {
    batches: async () => k.batches ?? [],
    lastLabelSubmitter: async () => k.submitter,
    labelDuration: async () => k.labelMs ?? 0,
    openIssueErrorCodes: async () => k.issueCodes ?? [],
    lastCompleterIn: async () => undefined,
  };
  return {
    taskId: '0123456789abcdef01234567',
    externalId: k.externalId ?? 'a.jpg',
    answer: { tools: [], classifications: [], relations: [], ...k.answer },
    facts,
    random: () => k.draw ?? 0.5,
  };
}

const route = (condition: Omit<LogicCondition, 'index'>, k?: Known) => evaluateLogic(stageWith(condition), inputs(k));

describe('Logic conditions, each on both sides of its boundary', () => {
  it('AnnotationType exists___ / not-exist___: every filter of every tools entry must hold', async () => {
    const car = { tools: [{ schemaId: 'car', 'bounding-box': { x: 0, y: 0, width: 1, height: 1 } }] };
    const both = {
      type: 'AnnotationType' as const,
      value: { tools: [{ filter: ['exists___car', 'not-exist___dog'] }] },
    };
    expect(await route(both, { answer: car })).toBe('hit');
    expect(await route(both, { answer: {} })).toBe('miss');
    const dog = { tools: [...car.tools, { schemaId: 'dog', point: [1, 1] }] };
    expect(await route(both, { answer: dog })).toBe('miss');
    const twoEntries = {
      type: 'AnnotationType' as const,
      value: { tools: [{ filter: ['exists___car'] }, { filter: ['exists___sun'] }] },
    };
    expect(await route(twoEntries, { answer: car })).toBe('miss');
    const sunny = { ...car, classifications: [{ schemaId: 'sun', answer: 'yes' }] };
    expect(await route(twoEntries, { answer: sunny })).toBe('hit');
    // A classification saved without an answer does not exist; a nested answer does.
    expect(await route(twoEntries, { answer: { ...car, classifications: [{ schemaId: 'sun', answer: '' }] } })).toBe(
      'miss',
    );
    const nested = {
      ...car,
      classifications: [{ schemaId: 'w', answer: 'r', classifications: [{ schemaId: 'sun', answer: true }] }],
    };
    expect(await route(twoEntries, { answer: nested })).toBe('hit');
    expect(await route({ type: 'AnnotationType', value: { tools: [] } }, { answer: car })).toBe('miss');
  });

  it('AnnotationType sees a video object or frame-specific answer on any frame', async () => {
    const box = { x: 0, y: 0, width: 1, height: 1 };
    const late = {
      tools: [
        { schemaId: 'car', objectId: 'c', page: 40, 'bounding-box': box },
        { schemaId: 'car', objectId: 'c', page: 41, 'bounding-box': box, interpolationStopped: true },
      ],
      classifications: [{ schemaId: 'sun', answer: 'yes', page: 90 }],
    };
    const both = { type: 'AnnotationType' as const, value: { tools: [{ filter: ['exists___car', 'exists___sun'] }] } };
    expect(await route(both, { answer: late })).toBe('hit');
    expect(await route(both, { answer: { tools: late.tools } })).toBe('miss');
  });

  it('filters parse ids that contain ___ and refuse other forms', () => {
    expect(parseToolFilter('exists___a___b')).toEqual({ exists: true, schemaId: 'a___b' });
    expect(parseToolFilter('not-exist___x')).toEqual({ exists: false, schemaId: 'x' });
    expect(parseToolFilter('exist___x')).toBeUndefined();
    expect(parseToolFilter('exists___')).toBeUndefined();
    const answer = {
      tools: [{ schemaId: 't', classifications: [{ schemaId: 'c', answer: 1 }, { schemaId: 'blank' }] }],
      classifications: [],
      relations: [{ schemaId: 'r' }],
    };
    expect([...schemaIdsIn(answer)].sort()).toEqual(['c', 'r', 't']);
  });

  it('Annotator: the last Label submitter is in emails (case-insensitive); nobody submitted: no match', async () => {
    const c = { type: 'Annotator' as const, value: { emails: ['Ann@Example.com', 'bob@example.com'] } };
    expect(await route(c, { submitter: 'ann@example.com' })).toBe('hit');
    expect(await route(c, { submitter: 'carl@example.com' })).toBe('miss');
    expect(await route(c, {})).toBe('miss');
  });

  it('RandomSample: a draw below sampleRate matches, at or above it does not', async () => {
    const c = (sampleRate: number) => ({ type: 'RandomSample' as const, value: { sampleRate } });
    expect(await route(c(0.31), { draw: 0.3 })).toBe('hit');
    expect(await route(c(0.3), { draw: 0.3 })).toBe('miss');
    expect(await route(c(1), { draw: 0.999999 })).toBe('hit');
    expect(await route(c(0), { draw: 0 })).toBe('miss');
  });

  it('RandomSample with a seed is repeatable per externalId and stage, independent across tasks', async () => {
    const stage = stageWith({ type: 'RandomSample', value: { sampleRate: 0.5 } });
    const run = async (seed: string) => {
      const random = makeSampler(seed);
      const out: string[] = [];
      for (let i = 0; i < 200; i += 1) {
        out.push((await evaluateLogic(stage, { ...inputs({ externalId: `img-${i}.jpg` }), random })) ?? '');
      }
      return out;
    };
    const first = await run('42');
    expect(await run('42')).toEqual(first);
    expect(await run('43')).not.toEqual(first);
    const hits = first.filter((x) => x === 'hit').length;
    expect(hits).toBeGreaterThan(70);
    expect(hits).toBeLessThan(130);
  });

  it('Duration: lt / gt / eq in ms against the total Label time', async () => {
    const c = (operator: 'lt' | 'gt' | 'eq') => ({ type: 'Duration' as const, value: { operator, duration: 60_000 } });
    expect(await route(c('lt'), { labelMs: 59_999 })).toBe('hit');
    expect(await route(c('lt'), { labelMs: 60_000 })).toBe('miss');
    expect(await route(c('gt'), { labelMs: 60_001 })).toBe('hit');
    expect(await route(c('gt'), { labelMs: 60_000 })).toBe('miss');
    expect(await route(c('eq'), { labelMs: 60_000 })).toBe('hit');
    expect(await route(c('eq'), { labelMs: 60_001 })).toBe('miss');
  });

  it('Batch: the task is in one of the batches, named by name or by id', async () => {
    const batches = [{ id: 'b0000000000000000000000a', name: 'night' }];
    expect(await route({ type: 'Batch', value: { batches: ['night'] } }, { batches })).toBe('hit');
    expect(await route({ type: 'Batch', value: { batches: ['b0000000000000000000000a'] } }, { batches })).toBe('hit');
    expect(await route({ type: 'Batch', value: { batches: ['day'] } }, { batches })).toBe('miss');
    expect(await route({ type: 'Batch', value: { batches: ['night'] } }, { batches: [] })).toBe('miss');
  });

  it('IssueErrorCode: an open issue with one of the codes; any code when none are given', async () => {
    const c = { type: 'IssueErrorCode' as const, value: { errorCodes: ['E1', 'E2'] } };
    expect(await route(c, { issueCodes: ['E9', 'E2'] })).toBe('hit');
    expect(await route(c, { issueCodes: ['E9'] })).toBe('miss');
    expect(await route({ type: 'IssueErrorCode', value: {} }, { issueCodes: ['E9'] })).toBe('hit');
    expect(await route({ type: 'IssueErrorCode', value: {} }, { issueCodes: [] })).toBe('miss');
  });

  it('conditions run in order, the first match wins, no match takes the last next entry', async () => {
    const stage = stageWith({ type: 'Annotator', value: { emails: ['x@example.com'] } }, [
      { type: 'Duration', index: 1, value: { operator: 'gt', duration: 10 } },
      { type: 'Duration', index: 0, value: { operator: 'gt', duration: 5 } },
    ]);
    expect(await evaluateLogic(stage, inputs({ labelMs: 20 }))).toBe('other');
    expect(await evaluateLogic(stage, inputs({ labelMs: 20, submitter: 'x@example.com' }))).toBe('hit');
    expect(await evaluateLogic(stage, inputs({ labelMs: 7 }))).toBe('hit');
    expect(await evaluateLogic(stage, inputs({ labelMs: 1 }))).toBe('miss');
    expect(await evaluateLogic({ ...stage, logic: { conditions: [] } }, inputs())).toBe('miss');
  });
});
