import { describe, expect, it } from 'vitest';
import { answerFields, consensusAverage } from '../../src/services/exports/export-item-json.js';

const asObject = (fields: string) => JSON.parse(`{${fields}}`) as Record<string, unknown>;

describe('answerFields: the answer spliced into an export item', () => {
  it('splices an answer stored the way every writer stores it, unchanged', () => {
    const stored = JSON.stringify({
      tools: [{ schemaId: 'car', 'bounding-box': { x: 1, y: 2, width: 3, height: 4 } }],
      classifications: [{ schemaId: 'notes', answer: '],"relations":[ is just text' }],
      relations: [],
    });
    expect(answerFields(stored)).toBe(stored.slice(1, -1));
    expect(asObject(answerFields(stored))).toEqual(JSON.parse(stored));
  });

  it('normalizes any other form: key order, the objects alias, missing or wrong parts', () => {
    const cases: [unknown, unknown][] = [
      [{}, { tools: [], classifications: [], relations: [] }],
      [
        { relations: [], tools: [{ a: 1 }] },
        { tools: [{ a: 1 }], classifications: [], relations: [] },
      ],
      [{ objects: [{ b: 2 }] }, { tools: [{ b: 2 }], classifications: [], relations: [] }],
      [
        { tools: {}, classifications: 'x', extra: 1 },
        { tools: [], classifications: [], relations: [] },
      ],
    ];
    for (const [stored, expected] of cases) expect(asObject(answerFields(JSON.stringify(stored)))).toEqual(expected);
  });
});

describe('consensusAverage', () => {
  it('is the score in percent with two decimals, or null', () => {
    expect(consensusAverage(null)).toBeNull();
    expect(consensusAverage(0.7)).toBe(70);
    expect(consensusAverage(2 / 3)).toBe(66.67);
    expect(consensusAverage(1)).toBe(100);
  });
});
