import { describe, expect, it } from 'vitest';
import { fromApi, toApi } from './codec';
import { addObject, addRelation, deleteObject, setQuestion } from './edit';
import { boxCorners as rotatedCorners } from '../tools/shared/box-tool';
import { hitObject, moveVertex, translate } from './objects';
import { boxFromCorners, pointInPolygon } from './plane';
import { commit, redo, startHistory, undo } from './history';
import type { Ontology } from './ontology';
import type { Geometry } from './answer';
import { shortcutMap } from './ontology';
import { submitProblems } from './validate';
import { fitViewport, toImage, toScreen, zoomAt } from '../media/image/viewport';

const ontology: Ontology = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000', shortcutKey: 'c' },
    { schemaId: 'road', title: 'Road', tool: 'polygon' },
    { schemaId: 'sun', title: 'Sun', tool: 'point', multiple: false },
    {
      schemaId: 'person',
      title: 'Person',
      tool: 'bounding-box',
      classifications: [
        { schemaId: 'pose', title: 'Pose', tool: 'radio', required: true, options: [{ schemaId: 'up', value: 'Up' }] },
      ],
    },
  ],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      required: true,
      options: [
        {
          schemaId: 'rain',
          value: 'Rain',
          children: [{ schemaId: 'amount', title: 'Amount', tool: 'text', required: true, regex: '\\d+mm' }],
        },
        { schemaId: 'dry', value: 'Dry' },
      ],
    },
  ],
  relations: [{ schemaId: 'drives', title: 'Drives', tool: 'one-to-one' }],
};

describe('viewport', () => {
  it('round-trips image and screen points', () => {
    const v = { scale: 2.5, offsetX: 40, offsetY: -12 };
    const p = toImage(v, toScreen(v, [123.5, 77]));
    expect(p[0]).toBeCloseTo(123.5);
    expect(p[1]).toBeCloseTo(77);
  });
  it('fits the image and zooms about the cursor', () => {
    const v = fitViewport(4000, 3000, 1000, 800, 0);
    expect(v.scale).toBeCloseTo(0.25);
    expect(v.offsetY).toBeCloseTo((800 - 750) / 2);
    const cursor: [number, number] = [300, 200];
    const before = toImage(v, cursor);
    const after = toImage(zoomAt(v, cursor, 3), cursor);
    expect(after[0]).toBeCloseTo(before[0]);
    expect(after[1]).toBeCloseTo(before[1]);
  });
});

describe('geometry', () => {
  it('builds boxes from corners dragged any way', () => {
    expect(boxFromCorners([50, 80], [10, 20])).toEqual({ x: 10, y: 20, width: 40, height: 60 });
  });
  it('rotates about the top-left corner', () => {
    const [, b] = rotatedCorners({ x: 0, y: 0, width: 10, height: 5, rotation: 90 });
    expect(b?.[0]).toBeCloseTo(0);
    expect(b?.[1]).toBeCloseTo(10);
  });
  it('moves shapes and vertices', () => {
    expect(translate({ kind: 'point', value: [1, 2] }, 3, 4)).toEqual({ kind: 'point', value: [4, 6] });
    const poly = {
      kind: 'polygon' as const,
      value: [
        [0, 0],
        [10, 0],
        [10, 10],
      ] as [number, number][],
    };
    expect(moveVertex(poly, 1, [20, 1]).value).toEqual([
      [0, 0],
      [20, 1],
      [10, 10],
    ]);
    expect(pointInPolygon([8, 2], poly.value)).toBe(true);
    expect(pointInPolygon([2, 8], poly.value)).toBe(false);
  });

  it('finds the topmost object under a click, in image pixels, with a tolerance for lines and points', () => {
    const objects = [
      { id: 'box', geometry: { kind: 'bounding-box', value: { x: 0, y: 0, width: 100, height: 50 } } },
      {
        id: 'turned',
        geometry: { kind: 'rotated-bounding-box', value: { x: 200, y: 0, width: 100, height: 20, rotation: 90 } },
      },
      {
        id: 'line',
        geometry: {
          kind: 'polyline',
          value: [
            [0, 200],
            [100, 200],
            [100, 300],
          ],
        },
      },
      { id: 'dot', geometry: { kind: 'point', value: [50, 25] } },
    ] as { id: string; geometry: Geometry }[];
    expect(hitObject(objects, [50, 25], 5)?.id).toBe('dot');
    expect(hitObject(objects, [10, 10], 5)?.id).toBe('box');
    expect(hitObject(objects, [104, 10], 5)?.id).toBe('box');
    expect(hitObject(objects, [110, 10], 5)).toBeUndefined();
    // Turned 90 degrees about (200, 0): it spans x 180..200, y 0..100.
    expect(hitObject(objects, [190, 80], 5)?.id).toBe('turned');
    expect(hitObject(objects, [250, 10], 5)).toBeUndefined();
    expect(hitObject(objects, [50, 203], 5)?.id).toBe('line');
    // A polyline is not closed: the chord from its last vertex to its first is no hit.
    expect(hitObject(objects, [50, 250], 5)).toBeUndefined();
  });

  it('picks the most precise hit among overlapping objects, not the last drawn', () => {
    const big = { id: 'big', geometry: { kind: 'bounding-box', value: { x: 0, y: 0, width: 400, height: 300 } } };
    const small = { id: 'small', geometry: { kind: 'bounding-box', value: { x: 100, y: 100, width: 50, height: 50 } } };
    const spot = { id: 'spot', geometry: { kind: 'point', value: [300, 200] } };
    // The big box comes last in the answer's order, so it was drawn over the small one.
    const objects = [small, spot, big] as { id: string; geometry: Geometry }[];
    expect(hitObject(objects, [120, 120], 5)?.id).toBe('small');
    expect(hitObject(objects, [50, 50], 5)?.id).toBe('big');
    expect(hitObject(objects, [301, 201], 5)?.id).toBe('spot');
    // Near the small box's outline but inside the big one: the outline wins over an interior.
    expect(hitObject(objects, [98, 120], 5)?.id).toBe('small');
    // Near the big box's outline: the big one, though the click is nowhere inside another.
    expect(hitObject(objects, [2, 150], 5)?.id).toBe('big');
    // Two identical boxes: the last drawn.
    const twin = { id: 'twin', geometry: small.geometry };
    expect(hitObject([small, twin] as { id: string; geometry: Geometry }[], [120, 120], 5)?.id).toBe('twin');
  });
});

describe('answer codec and edits', () => {
  it('round-trips the API answer, keeping unknown fields and objects it does not draw', () => {
    const api = {
      tools: [
        {
          objectId: 'o1',
          schemaId: 'car',
          'bounding-box': { x: 1, y: 2, width: 3, height: 4 },
          classifications: [],
          metadata: { createdBy: 'a@b' },
        },
        { objectId: 'o2', schemaId: 'mask', brush: { rle: 'xyz' } },
      ],
      classifications: [{ schemaId: 'weather', answer: 'dry' }],
      relations: [{ schemaId: 'drives', relationId: 'r1', objectIds: ['o1', 'o3'] }],
      pointLabels: [{ page: 0, classes: ['car'], runs: [3, 0, 2, 1] }],
    };
    const { value, kept } = fromApi(api, ontology);
    expect(value.extra).toEqual({ pointLabels: api.pointLabels });
    expect(value.objects).toHaveLength(1);
    expect(kept).toEqual([api.tools[1]]);
    expect(toApi(value, kept)).toEqual(api);
  });
  it('reads the frame or page of an object of a medium of many parts, and writes it back', () => {
    const api = {
      tools: [
        {
          objectId: 'o1',
          schemaId: 'car',
          'bounding-box': { x: 1, y: 2, width: 3, height: 4 },
          page: 7,
          classifications: [],
        },
        {
          objectId: 'o2',
          schemaId: 'car',
          'bounding-box': { x: 1, y: 2, width: 3, height: 4 },
          page: 'x',
          classifications: [],
        },
      ],
      classifications: [],
      relations: [],
    };
    const { value } = fromApi(api, ontology);
    expect(value.objects.map((o) => o.where)).toEqual([{ page: 7 }, undefined]);
    expect(value.objects[1]?.extra).toEqual({ page: 'x' });
    expect(toApi(value)).toEqual(api);
  });
  it('keeps one object for multiple: false tools and drops relations of deleted objects', () => {
    const sun = ontology.tools![2]!;
    let a = addObject({ objects: [], classifications: [], relations: [] }, sun, {
      kind: 'point',
      value: [1, 1],
    }).answer;
    a = addObject(a, sun, { kind: 'point', value: [2, 2] }).answer;
    expect(a.objects.map((o) => o.geometry.value)).toEqual([[2, 2]]);
    const car = ontology.tools![0]!;
    const first = addObject(a, car, { kind: 'bounding-box', value: { x: 0, y: 0, width: 5, height: 5 } });
    a = addRelation(first.answer, 'drives', [first.objectId, a.objects[0]!.objectId]);
    expect(a.relations).toHaveLength(1);
    expect(deleteObject(a, first.objectId).relations).toEqual([]);
  });
  it('drops nested answers when their option is no longer chosen', () => {
    const weather = ontology.classifications![0]!;
    let list = setQuestion([], weather, 'rain');
    list = [{ ...list[0]!, classifications: [{ schemaId: 'amount', answer: '4mm' }] }];
    expect(setQuestion(list, weather, 'rain')[0]?.classifications).toHaveLength(1);
    expect(setQuestion(list, weather, 'dry')[0]?.classifications).toBeUndefined();
  });
});

describe('submit checks', () => {
  it('points out required questions at every depth, per object, and malformed text', () => {
    const person = ontology.tools![3]!;
    const { answer } = addObject({ objects: [], classifications: [], relations: [] }, person, {
      kind: 'bounding-box',
      value: { x: 0, y: 0, width: 9, height: 9 },
    });
    expect(submitProblems(answer, ontology).map((p) => p.schemaId)).toEqual(['weather', 'pose']);
    const rained = {
      ...answer,
      classifications: [
        { schemaId: 'weather', answer: 'rain', classifications: [{ schemaId: 'amount', answer: 'lots' }] },
      ],
    };
    expect(submitProblems(rained, ontology).map((p) => p.message)).toContain(
      '"Amount" does not match the expected format (\\d+mm)',
    );
  });
});

describe('undo history and shortcuts', () => {
  it('undoes, redoes and forgets the redo branch on a new change', () => {
    let h = startHistory(1);
    h = commit(h, 2);
    h = commit(h, 3);
    h = undo(h);
    expect(h.present).toBe(2);
    h = redo(h);
    expect(h.present).toBe(3);
    h = commit(undo(h), 9);
    expect(h.future).toEqual([]);
    expect(undo(h).present).toBe(2);
  });
  it('uses the ontology keys and numbers the rest', () => {
    expect([...shortcutMap(ontology)]).toEqual([
      ['c', 'car'],
      ['1', 'road'],
      ['2', 'sun'],
      ['3', 'person'],
    ]);
  });
});

describe('drawing gestures', () => {
  it('drags a box, ignores a click, and clicks a polygon closed on its first vertex', async () => {
    const { pointerDown, pointerMove, pointerUp, IDLE } = await import('../media/image/drawing');
    let s = pointerDown(IDLE, 'bounding-box', [10, 10], 1);
    s = pointerUp(pointerMove(s.drawing, [30, 50]), [40, 60], 1);
    expect(s.done).toEqual({ kind: 'bounding-box', value: { x: 10, y: 10, width: 30, height: 50 } });
    expect(pointerUp(pointerDown(IDLE, 'bounding-box', [5, 5], 1).drawing, [6, 6], 1).done).toBeUndefined();
    let d = IDLE as import('../media/image/drawing').Drawing;
    for (const p of [
      [0, 0],
      [100, 0],
      [100, 100],
    ] as [number, number][])
      d = pointerDown(d, 'polygon', p, 2).drawing;
    const closed = pointerDown(d, 'polygon', [2, 1], 2);
    expect(closed.done).toEqual({
      kind: 'polygon',
      value: [
        [0, 0],
        [100, 0],
        [100, 100],
      ],
    });
  });
});

describe('text spans and the work clock', () => {
  it('counts NER offsets in code points and cuts overlapping spans', async () => {
    const { segments, toCodePoints, toUtf16 } = await import('../media/text/spans');
    const text = 'I 😀 Paris and Rome';
    const paris = text.indexOf('Paris');
    expect(toCodePoints(text, paris)).toBe(paris - 1);
    expect(toUtf16(text, toCodePoints(text, paris))).toBe(paris);
    const obj = (id: string, start: number, end: number) => ({
      objectId: id,
      schemaId: 'place',
      geometry: { kind: 'ner' as const, value: { start, end } },
      classifications: [],
      extra: {},
    });
    const s = segments('abcdef', [obj('a', 1, 4), obj('b', 3, 5)]);
    expect(s.map((x) => [x.from, x.to, x.objects.map((o) => o.objectId).join('')])).toEqual([
      [0, 1, ''],
      [1, 3, 'a'],
      [3, 4, 'ab'],
      [4, 5, 'b'],
      [5, 6, ''],
    ]);
  });
  it('counts idle time only up to the timeout and hidden time not at all', async () => {
    const { activity, startClock, tick } = await import('./work-clock');
    let c = startClock(0);
    c = tick(c, 10_000, 30_000, true);
    c = tick(c, 100_000, 30_000, true); // idle since 0: counted until 30 s
    expect(c.workedMs).toBe(30_000);
    c = activity(c, 100_000, 30_000, true);
    c = tick(c, 110_000, 30_000, false); // hidden
    expect(c.workedMs).toBe(30_000);
    expect(c.idleMs).toBe(80_000);
    c = tick(c, 120_000, 0, true);
    expect(c.workedMs).toBe(40_000);
  });
});
