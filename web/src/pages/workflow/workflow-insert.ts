import type { Stage } from '../../api/types';
import { outputKind, ROW, STEP } from './workflow-model';

/*
 * A new stage added while another is selected goes where a person means it to: right after the
 * selected stage, wired from it. In a chain (Label -> Complete, Label selected) the new stage
 * steps in between (Label -> new -> Complete) and the stages to its right move over to make
 * room; a Review stage with an output still open, or a Logic stage, gets it as a new branch,
 * below. Without a selection (or from a stage with no outputs) it lands in the next free slot,
 * unconnected, as before.
 */

type Point = { x: number; y: number };

const at = (s: Stage): Point => s.position ?? { x: 0, y: 0 };

function taken(stages: readonly Stage[], p: Point): boolean {
  return stages.some((s) => Math.abs(at(s).x - p.x) < STEP / 2 && Math.abs(at(s).y - p.y) < ROW);
}

/** The first free slot at `x` from row `y` downwards. */
function freeBelow(stages: readonly Stage[], p: Point): Point {
  let y = p.y;
  while (taken(stages, { x: p.x, y })) y += ROW;
  return { x: p.x, y };
}

/** The new stage's own outputs when it steps in before `onward`: the way on, and back on rejection. */
function wireOnward(stage: Stage, onward: string, from: Stage): Stage {
  const kind = outputKind(stage.type);
  if (kind === 'none' || !onward) return stage;
  if (kind === 'review') return { ...stage, next: [onward, from.type === 'Label' ? from.id : ''] };
  return { ...stage, next: [onward] };
}

/** Which output of `from` the new stage takes, and whether it steps into an existing route. */
function chooseOutput(from: Stage): { index: number; onward: string; branch: boolean } | undefined {
  const next = from.next ?? [];
  switch (outputKind(from.type)) {
    case 'none':
      return undefined;
    case 'single':
      return { index: 0, onward: next[0] ?? '', branch: false };
    case 'review': {
      const open = [0, 1].find((i) => !next[i]);
      return open === undefined
        ? { index: 0, onward: next[0] ?? '', branch: false }
        : { index: open, onward: '', branch: open > 0 };
    }
    case 'logic': {
      // Before the else output (the last), so the else keeps its target and its meaning.
      const open = next.indexOf('');
      if (open >= 0) return { index: open, onward: '', branch: true };
      return { index: Math.max(0, next.length - 1), onward: '', branch: true };
    }
  }
}

/** Logic: a new output at `index` moves the later outputs, and the conditions naming them, one on. */
function insertLogicOutput(from: Stage, index: number, id: string): Stage {
  const next = [...(from.next ?? [])];
  if (next[index] === '') {
    next[index] = id;
    return { ...from, next };
  }
  next.splice(index, 0, id);
  const conditions = (from.logic?.conditions ?? []).map((c) => (c.index >= index ? { ...c, index: c.index + 1 } : c));
  return { ...from, next, logic: { ...from.logic, conditions } };
}

/** The draft with `stage` added after `selectedId` (see above); `stage` keeps its id and settings. */
export function addStageAfter(stages: readonly Stage[], selectedId: string | undefined, stage: Stage): Stage[] {
  const from = stages.find((s) => s.id === selectedId);
  const choice = from ? chooseOutput(from) : undefined;
  if (!from || !choice) return [...stages, stage];
  const origin = at(from);
  const slot = { x: origin.x + STEP, y: origin.y };
  if (choice.branch) {
    const placed = { ...stage, position: freeBelow(stages, { x: slot.x, y: origin.y + ROW }) };
    const wired = stages.map((s) => {
      if (s.id !== from.id) return s;
      if (from.type === 'Logic') return insertLogicOutput(s, choice.index, stage.id);
      const next = [...(s.next ?? [])];
      next[choice.index] = stage.id;
      return { ...s, next };
    });
    return [...wired, placed];
  }
  // Stepping into the chain: everything right of the selected stage moves one step over.
  const roomy = taken(stages, slot);
  const moved = stages.map((s) => {
    const shifted = roomy && at(s).x > origin.x + STEP / 2 ? { ...s, position: { x: at(s).x + STEP, y: at(s).y } } : s;
    if (s.id !== from.id) return shifted;
    const next = [...(s.next ?? [])];
    next[choice.index] = stage.id;
    return { ...shifted, next };
  });
  return [...moved, wireOnward({ ...stage, position: slot }, choice.onward, from)];
}
