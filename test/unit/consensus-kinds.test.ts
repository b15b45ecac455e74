import { describe, expect, it } from 'vitest';
import type { CategorySchema } from '../../src/schemas/category-schema.js';
import { adjudicate } from '../../src/workflow/consensus/adjudicate.js';
import { scoreBenchmark } from '../../src/workflow/consensus/benchmark-score.js';
import { agreementScore, pairAgreement } from '../../src/workflow/consensus/score.js';
import { objectSimilarity } from '../../src/workflow/consensus/similarity.js';
import type { TaskAnswer } from '../../src/workflow/types.js';

/*
 * Consensus agreement and adjudication of NER spans, points, polylines and segmentation zones,
 * on hand-made copies with hand-computed figures, and the proof that consensus and benchmark
 * scores measure objects alike.
 */

const SCHEMA = {
  tools: [
    { schemaId: 'person', title: 'Person', tool: 'ner' },
    { schemaId: 'pin', title: 'Pin', tool: 'point' },
    { schemaId: 'lane', title: 'Lane', tool: 'polyline' },
    { schemaId: 'road', title: 'Road', tool: 'segmentation' },
    { schemaId: 'car', title: 'Car', tool: 'bounding-box' },
    { schemaId: 'paint', title: 'Paint', tool: 'brush' },
  ],
  classifications: [],
  relations: [],
} as unknown as CategorySchema;

type Obj = Record<string, unknown>;
const copy = (...tools: Obj[]): TaskAnswer => ({ tools, classifications: [], relations: [] }) as TaskAnswer;
const span = (start: number, end: number, objectId = `s${start}`) => ({
  schemaId: 'person',
  objectId,
  ner: { start, end },
});
const pin = (x: number, y: number, objectId = `p${x}`) => ({ schemaId: 'pin', objectId, point: [x, y] });
const lane = (y: number, objectId = `l${y}`) => ({
  schemaId: 'lane',
  objectId,
  polyline: [
    [0, y],
    [100, y],
  ],
});
const square = (x: number, y: number, side: number) => [
  [x, y],
  [x + side, y],
  [x + side, y + side],
  [x, y + side],
];
const road = (x: number, holes: number[][][] = [], objectId = `r${x}`) => ({
  schemaId: 'road',
  objectId,
  segmentation: { zones: [{ region: square(x, 0, 10), holes }] },
});
const car = (x: number, page?: number) => ({
  schemaId: 'car',
  objectId: `c${x}${page ?? ''}`,
  'bounding-box': { x, y: 0, width: 10, height: 10 },
  ...(page === undefined ? {} : { page }),
});

describe('consensus agreement of NER spans, points, polylines and zones', () => {
  it('NER: spans overlapping by 5 of 15 characters, the other span missed, agree (1/3 + 0) / 2', () => {
    const a = copy(span(0, 10), span(20, 30));
    const b = copy(span(5, 15));
    expect(agreementScore([a, b], SCHEMA)).toBeCloseTo(1 / 6, 12);
    expect(agreementScore([a, a], SCHEMA)).toBe(1);
  });

  it('points: 10 pixels apart agree 1 - 10 / 20; three copies average their three pairs', () => {
    const a = copy(pin(100, 100));
    const b = copy(pin(106, 108));
    const c = copy(pin(100, 100));
    expect(agreementScore([a, b], SCHEMA)).toBe(0.5);
    // Pairs (a, b) 0.5, (a, c) 1, (b, c) 0.5.
    expect(agreementScore([a, b, c], SCHEMA)).toBeCloseTo(2 / 3, 12);
    // 20 pixels or more apart: nothing shared.
    expect(agreementScore([a, copy(pin(112, 116))], SCHEMA)).toBe(0);
  });

  it('polylines: the same lane ten pixels lower agrees 0.5; with a vertex more it agrees fully', () => {
    expect(agreementScore([copy(lane(0)), copy(lane(10))], SCHEMA)).toBeCloseTo(0.5, 12);
    const bent = {
      schemaId: 'lane',
      polyline: [
        [0, 0],
        [50, 0],
        [100, 0],
      ],
    };
    expect(agreementScore([copy(lane(0)), copy(bent)], SCHEMA)).toBe(1);
  });

  it('zones: shifted by half their width agree 1/3; a 2x2 hole cut out of one costs 4 of 100', () => {
    expect(agreementScore([copy(road(0)), copy(road(5))], SCHEMA)).toBeCloseTo(1 / 3, 12);
    expect(agreementScore([copy(road(0)), copy(road(0, [square(4, 4, 2)]))], SCHEMA)).toBeCloseTo(0.96, 12);
  });

  it('averages one item per tool used; brushes are not compared', () => {
    const a = copy(span(0, 10), pin(100, 100), { schemaId: 'paint', brush: 'a' });
    const b = copy(span(0, 10), pin(106, 108), { schemaId: 'paint', brush: 'b' });
    // person 1, pin 0.5: mean 0.75.
    expect(agreementScore([a, b], SCHEMA)).toBe(0.75);
  });

  it('objects on different frames or pages share nothing, even drawn alike', () => {
    expect(agreementScore([copy(car(0, 3)), copy(car(0, 3))], SCHEMA)).toBe(1);
    expect(agreementScore([copy(car(0, 3)), copy(car(0, 4))], SCHEMA)).toBe(0);
    // No page is page 0.
    expect(agreementScore([copy(car(0)), copy(car(0, 0))], SCHEMA)).toBe(1);
  });

  it('a malformed object matches nothing', () => {
    expect(objectSimilarity('point', pin(1, 1), { schemaId: 'pin', point: ['1', 1] })).toBe(0);
    expect(objectSimilarity('ner', span(0, 4), { schemaId: 'person', ner: { start: 0 } })).toBe(0);
    expect(objectSimilarity('polyline', lane(0), { schemaId: 'lane', polyline: [[0, 0]] })).toBe(0);
    expect(objectSimilarity('segmentation', road(0), { schemaId: 'road', segmentation: { zones: [] } })).toBe(0);
    expect(objectSimilarity('brush', {}, {})).toBeUndefined();
  });
});

describe('consensus and benchmark scores measure objects alike', () => {
  const pairs: [string, Obj[], Obj[]][] = [
    ['person', [span(0, 10), span(20, 30)], [span(5, 15), span(40, 45)]],
    ['pin', [pin(100, 100), pin(300, 300)], [pin(104, 103)]],
    ['lane', [lane(0), lane(200)], [lane(6)]],
    ['road', [road(0), road(40)], [road(3, [square(5, 5, 2)])]],
    ['car', [car(0), car(30)], [car(5), car(31)]],
  ];
  it.each(pairs)('%s: the agreement of two copies is the benchmark score of one against the other', (id, a, b) => {
    const kind = SCHEMA.tools?.find((t) => t.schemaId === id)?.tool as string;
    const agreement = pairAgreement(kind, a, b);
    expect(agreement).toBeGreaterThan(0);
    expect(agreement).toBeLessThan(1);
    expect(scoreBenchmark(copy(...b), copy(...a), SCHEMA).score).toBe(Math.round(agreement * 100 * 1000) / 1000);
  });
});

describe('adjudication of spans, points, polylines and zones', () => {
  it('points within the match distance are one object; a lone point is left out by the majority', () => {
    // a-b 5 px apart (similarity 0.75): one object; c's point is 60 px away from both.
    const a = copy(pin(100, 100, 'a'));
    const b = copy(pin(104, 103, 'b'));
    const c = copy(pin(160, 160, 'c'));
    expect(adjudicate('majority', [a, b, c], SCHEMA).tools.map((o) => o.objectId)).toEqual(['a']);
    expect(adjudicate('union', [a, b, c], SCHEMA).tools.map((o) => o.objectId)).toEqual(['a', 'c']);
    expect(adjudicate('intersection', [a, b, c], SCHEMA).tools).toEqual([]);
  });

  it('spans overlapping by half or more merge; the most central member is kept', () => {
    // [0,10) [1,10) [0,9): the first is within 0.9 of both others, the others 0.8 of each other.
    const copies = [copy(span(1, 10, 'x')), copy(span(0, 10, 'y')), copy(span(0, 9, 'z'))];
    expect(adjudicate('intersection', copies, SCHEMA).tools.map((o) => o.objectId)).toEqual(['y']);
    // [0,10) and [6,10): 4 of 10 shared, below 0.5: two objects.
    const apart = [copy(span(0, 10, 'x')), copy(span(6, 10, 'y'))];
    expect(adjudicate('union', apart, SCHEMA).tools.map((o) => o.objectId)).toEqual(['x', 'y']);
  });

  it('lanes and zones merge by their measure too', () => {
    const lanes = [copy(lane(0, 'a')), copy(lane(4, 'b'))];
    expect(adjudicate('intersection', lanes, SCHEMA).tools.map((o) => o.objectId)).toEqual(['a']);
    // Zones shifted by 5 (IoU 1/3) stay apart.
    const zones = [copy(road(0, [], 'a')), copy(road(5, [], 'b'))];
    expect(adjudicate('union', zones, SCHEMA).tools.map((o) => o.objectId)).toEqual(['a', 'b']);
  });
});
