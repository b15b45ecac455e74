import { describe, expect, it } from 'vitest';
import type { CategorySchema } from '../../src/schemas/category-schema.js';
import { scoreBenchmark } from '../../src/workflow/consensus/benchmark-score.js';
import { objectSimilarity } from '../../src/workflow/consensus/similarity.js';
import type { TaskAnswer } from '../../src/workflow/types.js';

const SCHEMA = {
  tools: [
    { schemaId: 'person', title: 'Person', tool: 'ner' },
    { schemaId: 'place', title: 'Place', tool: 'ner' },
  ],
  classifications: [],
  relations: [],
} as unknown as CategorySchema;

const answer = (tools: unknown[]): TaskAnswer => ({ tools, classifications: [], relations: [] }) as TaskAnswer;
const span = (schemaId: string, start: number, end: number, objectId = `${schemaId}${start}`) => ({
  schemaId,
  objectId,
  ner: { start, end },
});

describe('benchmark score of NER spans', () => {
  it('span overlap is shared over covered characters', () => {
    expect(objectSimilarity('ner', span('person', 0, 10), span('person', 0, 10))).toBe(1);
    // [0,10) and [5,15): 5 shared of 15 covered
    expect(objectSimilarity('ner', span('person', 0, 10), span('person', 5, 15))).toBeCloseTo(1 / 3, 12);
    // [0,4) inside [0,8): 4 of 8
    expect(objectSimilarity('ner', span('person', 0, 4), span('person', 0, 8))).toBe(0.5);
    // touching, not overlapping
    expect(objectSimilarity('ner', span('person', 0, 5), span('person', 5, 9))).toBe(0);
    expect(objectSimilarity('ner', span('person', 0, 5), { schemaId: 'person', ner: { start: 'a', end: 3 } })).toBe(0);
    expect(objectSimilarity('ner', span('person', 3, 3), span('person', 3, 3))).toBe(1);
  });

  it('a half-covered span, a missed span and an extra span score exactly', () => {
    const reference = answer([span('person', 0, 8, 'r1'), span('person', 20, 30, 'r2'), span('place', 40, 50, 'r3')]);
    const got = answer([span('person', 0, 4, 'a1'), span('place', 40, 50, 'a3'), span('place', 60, 70, 'a4')]);
    const result = scoreBenchmark(got, reference, SCHEMA);
    const person = result.items.find((i) => i.schemaId === 'person');
    const place = result.items.find((i) => i.schemaId === 'place');
    // person: r1 matched at 0.5, r2 missed -> 0.5 / 2
    expect(person).toMatchObject({
      kind: 'object',
      score: 0.25,
      extra: 0,
      objects: [
        { referenceId: 'r1', objectId: 'a1', similarity: 0.5 },
        { referenceId: 'r2', objectId: null, similarity: 0 },
      ],
    });
    // place: r3 matched exactly, a4 extra -> 1 / 2
    expect(place).toMatchObject({
      score: 0.5,
      extra: 1,
      objects: [{ referenceId: 'r3', objectId: 'a3', similarity: 1 }],
    });
    expect(result.score).toBe(37.5);
  });

  it('the same spans score 100; a span of another class does not count', () => {
    const reference = answer([span('person', 0, 8)]);
    expect(scoreBenchmark(reference, reference, SCHEMA).score).toBe(100);
    expect(scoreBenchmark(answer([span('place', 0, 8)]), reference, SCHEMA).score).toBe(0);
  });
});
