import { describe, expect, it } from 'vitest';
import type { ContractToolKind } from '../../api/contract';
import type { Geometry, Vec } from '../core/answer';
import { fromApi, toApi } from '../core/codec';
import type { AnyTool, DocumentTool, LidarTool, PagePoint, PlaneTool, Step, TextTool } from '../core/tool';
import { allTools } from '../core/tools';

/*
 * The Tool contract, for every registered tool whatever its kind: a gesture makes a value, a
 * click finds it, a move moves it, and its value survives the wire. Written against the
 * interface only: a new folder of tools/ is held to it without a line here.
 */

const VIEW = { scale: 1 };
const A: Vec = [40, 30];
const B: Vec = [140, 110];
const C: Vec = [160, 20];

/** A person's gesture on a plane: press, drag and release; then, for tools of many presses, two more and Enter. */
function drawOnPlane(tool: PlaneTool): unknown {
  let step: Step<unknown, unknown> = tool.press(null, A, VIEW);
  if (step.done !== undefined) return step.done;
  if (step.drawing === null) return undefined;
  step = tool.release(tool.drag(step.drawing, B), B, VIEW);
  if (step.done !== undefined) return step.done;
  for (const at of [B, C]) {
    if (step.drawing === null) return undefined;
    step = tool.press(step.drawing, at, VIEW);
    if (step.done !== undefined) return step.done;
  }
  return step.drawing !== null && tool.finish ? tool.finish(step.drawing).done : undefined;
}

/** A selection over a text from offset 3 to offset 9, made backwards as a person may. */
function markOnText(tool: TextTool): unknown {
  const step = tool.press(null, 9, VIEW);
  return step.drawing === null ? step.done : tool.release(tool.drag(step.drawing, 5), 3, VIEW).done;
}

/** An area dragged on a document's second page, from one corner to the other. */
function dragOnPage(tool: DocumentTool): unknown {
  const view = { ...VIEW, pageSize: [612, 792] as Vec };
  const step = tool.press(null, [1, ...A], view);
  return step.drawing === null ? step.done : tool.release(tool.drag(step.drawing, [1, ...C]), [1, ...B], view).done;
}

/** A drag over the ground of a point cloud's frame, in metres, from one corner to the other. */
function dragOnGround(tool: LidarTool): unknown {
  const step = tool.press(null, [4, 3, -1.5], VIEW);
  return step.drawing === null
    ? step.done
    : tool.release(tool.drag(step.drawing, [9, 7, -1.5]), [14, 11, -1.5], VIEW).done;
}

const made = (tool: AnyTool) =>
  tool.space === 'plane'
    ? drawOnPlane(tool)
    : tool.space === 'text'
      ? markOnText(tool)
      : tool.space === 'lidar'
        ? dragOnGround(tool)
        : dragOnPage(tool);

describe('the tool registry', () => {
  it('holds the kinds the editor draws, each a kind of the contract, once', () => {
    // Typed as the contract's kinds: a tool of a kind the OpenAPI document does not know fails to compile.
    const kinds: ContractToolKind[] = allTools().map((t) => t.kind);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'bounding-box',
        'rotated-bounding-box',
        'polygon',
        'polyline',
        'point',
        'ner',
        'pdf',
        'angle',
      ]),
    );
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});

describe.each(allTools().map((t) => [t.kind, t] as const))('the %s tool', (_kind, tool) => {
  it('makes a value from a gesture, big enough to keep', () => {
    const value = made(tool);
    expect(value).toBeDefined();
    expect(tool.degenerate(value as never, 1)).toBe(false);
  });

  it('finds its value under a click on it and not far away', () => {
    const value = made(tool) as never;
    if (tool.space === 'plane') {
      const first = tool.outline(value)[0] as Vec;
      expect(tool.hit(value, first, 2)?.edge).toBe(true);
      expect(tool.hit(value, [-5000, -5000], 2)).toBeUndefined();
    } else if (tool.space === 'lidar') {
      expect(tool.hit(value, [9, 7, -1], 0)).toBeDefined();
      expect(tool.hit(value, [-50, -50, -1], 2)).toBeUndefined();
    } else if (tool.space === 'text') {
      const { start, end } = tool.range(value);
      expect(tool.hit(value, start, 0)).toBeDefined();
      expect(tool.hit(value, end, 0)).toBeUndefined();
    } else {
      const { page, rects } = tool.placement(value);
      const [x1, y1, x2, y2] = rects[0] as [number, number, number, number];
      const inside: PagePoint = [page, (x1 + x2) / 2, (y1 + y2) / 2];
      expect(tool.hit(value, inside, 0)).toBeDefined();
      expect(tool.hit(value, [page + 1, inside[1], inside[2]], 0)).toBeUndefined();
      expect(tool.hit(value, [page, x2 + 50, y2 + 50], 2)).toBeUndefined();
    }
  });

  it('moves by a vector of its space, and a moved value is found where it went', () => {
    const value = made(tool) as never;
    if (tool.space === 'plane') {
      const moved = tool.move(value, [12.5, -7.25]);
      const before = tool.outline(value);
      const after = tool.outline(moved);
      expect(after).toHaveLength(before.length);
      after.forEach(([x, y], i) => {
        expect(x).toBeCloseTo((before[i] as Vec)[0] + 12.5, 2);
        expect(y).toBeCloseTo((before[i] as Vec)[1] - 7.25, 2);
      });
      expect(tool.hit(moved, after[0] as Vec, 2)?.edge).toBe(true);
    } else if (tool.space === 'lidar') {
      const moved = tool.move(value, [12.5, -7.25, 0.5]);
      expect(tool.hit(moved, [9 + 12.5, 7 - 7.25, -0.5], 0)).toBeDefined();
      expect(tool.hit(moved, [9, 7, -1], 0)).toBeUndefined();
    } else if (tool.space === 'text') {
      const moved = tool.move(value, 4);
      expect(tool.range(moved)).toEqual({ start: tool.range(value).start + 4, end: tool.range(value).end + 4 });
    } else {
      const before = tool.placement(value);
      const after = tool.placement(tool.move(value, [0, 12.5, -7.25]));
      expect(after.page).toBe(before.page);
      after.rects.forEach((r, i) => {
        const [x1, y1, x2, y2] = before.rects[i] as number[];
        expect(r).toEqual([x1! + 12.5, y1! - 7.25, x2! + 12.5, y2! - 7.25]);
      });
    }
  });

  it('round-trips its value through the wire, alone and inside an answer', () => {
    const value = made(tool) as never;
    const wire: unknown = JSON.parse(JSON.stringify(tool.write(value)));
    expect(tool.read(wire)).toEqual(value);
    expect(tool.read('not a value')).toBeNull();
    const ontology = { tools: [{ schemaId: 'thing', title: 'Thing', tool: tool.kind }] };
    const answer = {
      objects: [
        {
          objectId: 'o1',
          schemaId: 'thing',
          geometry: { kind: tool.kind, value } as Geometry,
          classifications: [],
          extra: {},
        },
      ],
      classifications: [],
      relations: [],
    };
    const sent = JSON.parse(JSON.stringify(toApi(answer))) as ReturnType<typeof toApi>;
    // A kind spread over several keys of the entry has them all there; any other, its own key.
    if (tool.entryKeys) expect(sent.tools[0]).toMatchObject(wire as object);
    else expect(sent.tools[0]?.[tool.kind]).toEqual(wire);
    const back = fromApi(sent, ontology);
    expect(back.kept).toEqual([]);
    expect(back.value.objects).toEqual(answer.objects);
  });
});
