import { describe, expect, it } from 'vitest';
import type { CategorySchema } from '../../src/schemas/category-schema.js';
import type { Stage } from '../../src/schemas/stage.js';
import { adjudicate } from '../../src/workflow/consensus/adjudicate.js';
import { subStageFor } from '../../src/workflow/consensus/copies.js';
import { boxIoU, intersectionArea, polygonIoU, rotatedBoxIoU, type Pt } from '../../src/workflow/consensus/geometry.js';
import { agreementScore, pairAgreement, shareAgreeing, toolAgreement } from '../../src/workflow/consensus/score.js';
import type { TaskAnswer } from '../../src/workflow/types.js';

const SCHEMA = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box' },
    { schemaId: 'roof', title: 'Roof', tool: 'polygon' },
    { schemaId: 'ship', title: 'Ship', tool: 'rotated-bounding-box' },
    { schemaId: 'pin', title: 'Pin', tool: 'point' },
    { schemaId: 'paint', title: 'Paint', tool: 'brush' },
  ],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        {
          schemaId: 'rain',
          value: 'Rain',
          children: [{ schemaId: 'heavy', title: 'Heavy', tool: 'boolean' }],
        },
      ],
    },
    { schemaId: 'tags', title: 'Tags', tool: 'checkbox' },
  ],
  relations: [],
} as unknown as CategorySchema;

const answer = (a: Partial<TaskAnswer>): TaskAnswer => ({ tools: [], classifications: [], relations: [], ...a });
const box = (x: number, y: number, width: number, height: number, objectId = `b${x}${y}`) => ({
  schemaId: 'car',
  objectId,
  'bounding-box': { x, y, width, height },
});
const radio = (value: string, children?: unknown[]) => ({
  schemaId: 'weather',
  answer: value,
  classifications: children,
});
const square: Pt[] = [
  [0, 0],
  [2, 0],
  [2, 2],
  [0, 2],
];

describe('geometry', () => {
  it('two boxes with IoU exactly 0.5: a 2x2 box and its 2x1 half, a 3x1 box and itself shifted by 1', () => {
    // {0,0,2,2} and {0,0,2,1}: intersection 2, union 4.
    expect(boxIoU({ x: 0, y: 0, width: 2, height: 2 }, { x: 0, y: 0, width: 2, height: 1 })).toBe(0.5);
    // {0,0,3,1} and {1,0,3,1}: intersection 2, union 4.
    expect(boxIoU({ x: 0, y: 0, width: 3, height: 1 }, { x: 1, y: 0, width: 3, height: 1 })).toBe(0.5);
    expect(boxIoU({ x: 0, y: 0, width: 1, height: 1 }, { x: 5, y: 5, width: 1, height: 1 })).toBe(0);
  });

  it('polygons: overlapping squares 1/3, a concave L inside a square 3/4, order and direction do not matter', () => {
    const shifted: Pt[] = [
      [1, 0],
      [3, 0],
      [3, 2],
      [1, 2],
    ];
    expect(polygonIoU(square, shifted)).toBeCloseTo(2 / 6, 12);
    // L-shape of area 3 (the square minus its top-right unit cell).
    const ell: Pt[] = [
      [0, 0],
      [2, 0],
      [2, 1],
      [1, 1],
      [1, 2],
      [0, 2],
    ];
    expect(intersectionArea(ell, square)).toBeCloseTo(3, 12);
    expect(polygonIoU(ell, square)).toBeCloseTo(0.75, 12);
    expect(polygonIoU([...ell].reverse(), square)).toBeCloseTo(0.75, 12);
    // Two L-shapes facing each other overlap in the 2x1 bottom strip minus nothing: area 2.
    const mirrored: Pt[] = ell.map(([x, y]): Pt => [2 - x, y]);
    expect(intersectionArea(ell, mirrored)).toBeCloseTo(2, 12);
    expect(polygonIoU(ell, mirrored)).toBeCloseTo(2 / 4, 12);
  });

  it('rotated boxes: a quarter turn of a square is itself; 45 degrees gives 1/sqrt(2)', () => {
    const base = { x: 0, y: 0, width: 2, height: 2, rotation: 0 };
    expect(rotatedBoxIoU(base, { ...base, rotation: 90 })).toBeCloseTo(1, 12);
    // Square of side 2 and the same turned 45 degrees about its centre: an octagon of area
    // 8(sqrt2 - 1); union 8 - that; IoU = sqrt(2)/2.
    expect(rotatedBoxIoU(base, { ...base, rotation: 45 })).toBeCloseTo(Math.SQRT1_2, 12);
  });
});

describe('agreement score', () => {
  it('three copies answering A, A, B score 2/3', () => {
    expect(shareAgreeing(['A', 'A', 'B'])).toBeCloseTo(2 / 3, 12);
    const copies = [
      answer({ classifications: [radio('sun')] }),
      answer({ classifications: [radio('sun')] }),
      answer({ classifications: [radio('rain')] }),
    ];
    expect(agreementScore(copies, SCHEMA)).toBeCloseTo(2 / 3, 12);
  });

  it('two copies with one box each at IoU 0.5 score 0.5; identical answers score 1', () => {
    const a = answer({ tools: [box(0, 0, 3, 1)] });
    const b = answer({ tools: [box(1, 0, 3, 1)] });
    expect(agreementScore([a, b], SCHEMA)).toBe(0.5);
    expect(agreementScore([a, a], SCHEMA)).toBe(1);
  });

  it('nested answers count as questions of their own; multi-selects compare as sets', () => {
    const heavy = (v: boolean) => [{ schemaId: 'heavy', answer: v }];
    const a = answer({ classifications: [radio('rain', heavy(true)), { schemaId: 'tags', answer: ['x', 'y'] }] });
    const b = answer({ classifications: [radio('rain', heavy(false)), { schemaId: 'tags', answer: ['y', 'x'] }] });
    // weather agrees (1), heavy disagrees (1/2), tags agree (1): mean 5/6.
    expect(agreementScore([a, b], SCHEMA)).toBeCloseTo(5 / 6, 12);
  });

  it('best match pairs objects one to one; unmatched objects count zero', () => {
    const a = [box(0, 0, 2, 2, 'a1'), box(10, 10, 2, 2, 'a2')];
    const b = [box(10, 10, 2, 2, 'b1')];
    // a2-b1 match at 1; a1 has no partner: (1 + 0) / 2.
    expect(pairAgreement('bounding-box', a, b)).toBe(0.5);
    expect(pairAgreement('bounding-box', [], [])).toBe(1);
    // Three copies: pairs (a,b)=0.5, (a,a)=1, (b,a)=0.5.
    expect(toolAgreement('bounding-box', [a, b, a])).toBeCloseTo(2 / 3, 12);
  });

  it('averages classifications and geometry over what the ontology holds; unscored kinds are ignored', () => {
    const a = answer({
      tools: [box(0, 0, 3, 1), { schemaId: 'pin', point: [1, 1] }, { schemaId: 'paint', brush: 'one' }],
      classifications: [radio('sun')],
    });
    const b = answer({
      tools: [box(1, 0, 3, 1), { schemaId: 'pin', point: [7, 9] }],
      classifications: [radio('rain')],
    });
    // car 0.5, pin 1 - 10 / 20 = 0.5, weather 1/2: mean 0.5. Brushes do not count.
    expect(agreementScore([a, b], SCHEMA)).toBe(0.5);
    const poly = (pts: Pt[]) => answer({ tools: [{ schemaId: 'roof', polygon: pts }] });
    expect(agreementScore([poly(square), poly(square.map(([x, y]): Pt => [x + 1, y]))], SCHEMA)).toBeCloseTo(1 / 3, 12);
    expect(agreementScore([answer({}), answer({})], SCHEMA)).toBe(1);
  });
});

describe('adjudication', () => {
  const a = answer({ tools: [box(0, 0, 10, 10, 'a1'), box(50, 50, 5, 5, 'a2')], classifications: [radio('sun')] });
  const b = answer({ tools: [box(1, 0, 10, 10, 'b1')], classifications: [radio('rain')] });
  const c = answer({ tools: [box(0, 1, 10, 10, 'c1'), box(80, 80, 5, 5, 'c2')], classifications: [radio('sun')] });

  it('majority keeps what more than half drew, and the most common answer', () => {
    const out = adjudicate('majority', [a, b, c], SCHEMA);
    // The three overlapping boxes form one object (kept: the most central, a1); a2 and c2 are alone.
    expect(out.tools.map((t) => t.objectId)).toEqual(['a1']);
    expect(out.classifications).toEqual([radio('sun')]);
    expect(out.relations).toEqual([]);
  });

  it('union keeps every object once; intersection only what all drew alike', () => {
    expect(adjudicate('union', [a, b, c], SCHEMA).tools.map((t) => t.objectId)).toEqual(['a1', 'a2', 'c2']);
    const inter = adjudicate('intersection', [a, b, c], SCHEMA);
    expect(inter.tools.map((t) => t.objectId)).toEqual(['a1']);
    expect(inter.classifications).toEqual([]);
    expect(adjudicate('intersection', [a, c], SCHEMA).classifications).toEqual([radio('sun')]);
  });

  it('first takes the first submitted copy as is', () => {
    const withRelation = { ...b, relations: [{ schemaId: 'rel', from: 'b1', to: 'b1' }] };
    expect(adjudicate('first', [withRelation, a], SCHEMA)).toEqual(withRelation);
  });

  it('ties go to the earliest copy', () => {
    expect(adjudicate('majority', [b, a], SCHEMA).classifications).toEqual([radio('rain')]);
  });
});

describe('which sub-stage works copy k', () => {
  const sub = (id: string, consensusDynamic = false): Stage => ({
    id,
    type: 'Label',
    next: ['C'],
    consensusId: 'C',
    consensusDynamic,
  });
  const ids = (stages: Stage[], n: number) => Array.from({ length: n }, (_, k) => subStageFor(stages, 'C', k).id);

  it('one copy per sub-stage, then round the consensusDynamic ones (or all when none is marked)', () => {
    expect(ids([sub('a'), sub('b'), sub('c')], 5)).toEqual(['a', 'b', 'c', 'a', 'b']);
    expect(ids([sub('a'), sub('b', true), sub('c')], 5)).toEqual(['a', 'b', 'c', 'b', 'b']);
  });
});
