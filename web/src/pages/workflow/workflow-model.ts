import type { LogicCondition, Stage, StageType } from '../../api/types';

/**
 * The editor's pure rules over a workflow draft: what outputs a stage has, what an edge from
 * each output is called, how a new stage is named and placed. No React here, so the rules read
 * in one place.
 */

/** Stages that end a task's way: no outputs. */
export const TERMINAL: ReadonlySet<StageType> = new Set(['Complete', 'Archive']);

export type OutputKind = 'none' | 'single' | 'review' | 'logic';

export function outputKind(type: StageType): OutputKind {
  if (TERMINAL.has(type)) return 'none';
  if (type === 'Review') return 'review';
  if (type === 'Logic') return 'logic';
  return 'single';
}

/** Review's two outputs in `next` order (the contract: accepted first, rejected second). */
export const REVIEW_OUTPUTS = ['Accepted', 'Rejected'] as const;

/** A short, readable statement of one Logic condition. */
export function describeCondition(c: LogicCondition): string {
  const v = c.value ?? {};
  switch (c.type) {
    case 'AnnotationType':
      return (v.tools ?? []).flatMap((t) => t.filter).join(' or ') || 'annotation type';
    case 'Annotator':
      return `by ${(v.emails ?? []).join(', ') || '(nobody)'}`;
    case 'RandomSample':
      return `sample ${Math.round((v.sampleRate ?? 0) * 100)}%`;
    case 'Duration':
      return `time ${{ lt: '<', gt: '>', eq: '=' }[v.operator ?? 'gt']} ${((v.duration ?? 0) / 1000).toString()} s`;
    case 'Batch':
      return `batch ${(v.batches ?? []).join(', ') || '(none)'}`;
    case 'IssueErrorCode':
      return `issue ${(v.errorCodes ?? []).join(', ') || '(any code)'}`;
  }
}

/**
 * What the edge from output `index` of a stage says: Review's Accepted/Rejected; for Logic the
 * conditions routing there, and "else" on the last output when no condition names it.
 */
export function edgeLabel(stage: Stage, index: number): string | undefined {
  if (stage.type === 'Review') return REVIEW_OUTPUTS[index];
  if (stage.type !== 'Logic') return undefined;
  const here = (stage.logic?.conditions ?? []).filter((c) => c.index === index).map(describeCondition);
  const last = index === (stage.next?.length ?? 0) - 1;
  if (here.length > 0) return here.join(' · ');
  return last ? 'else' : 'no condition';
}

/** A stage id from its name, unique within the draft (ids are what `next` refers to). */
export function newStageId(name: string, type: StageType, taken: ReadonlySet<string>): string {
  const base =
    name
      .trim()
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || type;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

/** The distance between two stages side by side, and between two rows of stages. */
export const STEP = 240;
export const ROW = 130;

/**
 * Where a new stage goes: the next slot of the flow, right of the rightmost stage that is not a
 * Complete stage (the end stays where it is); when that slot is taken (usually by Complete) the
 * first free one below it. So the diagram grows downwards before it grows wider than the view.
 */
export function newStagePosition(stages: readonly Stage[]): { x: number; y: number } {
  const placed = stages.map((s) => ({ type: s.type, x: s.position?.x ?? 0, y: s.position?.y ?? 0 }));
  if (placed.length === 0) return { x: 100, y: 100 };
  const flow = placed.filter((s) => s.type !== 'Complete');
  const from = (flow.length > 0 ? flow : placed).reduce((a, b) => (b.x > a.x || (b.x === a.x && b.y > a.y) ? b : a));
  const taken = (x: number, y: number) => placed.some((s) => Math.abs(s.x - x) < STEP / 2 && Math.abs(s.y - y) < ROW);
  const x = from.x + STEP;
  let y = from.y;
  while (taken(x, y)) y += ROW;
  return { x, y };
}

/** A new stage with the settings its type requires filled with starting values. */
export function blankStage(type: StageType, name: string, stages: readonly Stage[]): Stage {
  const id = newStageId(name, type, new Set(stages.map((s) => s.id)));
  const stage: Stage = { id, name: name.trim() || type, type, next: [], position: newStagePosition(stages) };
  if (type === 'Label' || type === 'Review') stage.assignedTo = [];
  if (type === 'Review') stage.next = ['', ''];
  if (type === 'Webhook')
    stage.webhook = { url: '', method: 'POST', authType: 'no_auth', timeout: 30000, retryCount: 3 };
  if (type === 'Logic') stage.logic = { type: 'RandomSample', value: {}, conditions: [] };
  if (type === 'Consensus')
    stage.consensusConfig = { version: 2, adjudicationMethod: 'majority', minCopies: 2, maxCopies: 5 };
  return stage;
}

/** The draft without a stage, and without every way into it. */
export function removeStage(stages: readonly Stage[], id: string): Stage[] {
  return stages
    .filter((s) => s.id !== id)
    .map((s) => {
      if (!s.next?.includes(id)) return s;
      // Review keeps its two places (an empty one is named by the server on save).
      const next = s.type === 'Review' ? s.next.map((n) => (n === id ? '' : n)) : s.next.filter((n) => n !== id);
      return { ...s, next };
    });
}

/** Sets output `index` of a stage to `target` ('' clears it); a single-exit stage has one output. */
export function connect(stages: readonly Stage[], sourceId: string, index: number, target: string): Stage[] {
  return stages.map((s) => {
    if (s.id !== sourceId) return s;
    const next = [...(s.next ?? [])];
    if (outputKind(s.type) === 'single') return { ...s, next: target ? [target] : [] };
    while (next.length <= index) next.push('');
    next[index] = target;
    if (s.type === 'Logic') {
      // A Logic output cleared at the end goes away; one cleared in the middle stays for its conditions.
      while (next.length > 0 && next[next.length - 1] === '') next.pop();
    }
    return { ...s, next };
  });
}

/** Which stage index a server error path (`stages[3].webhook.url`) points at. */
export function stageIndexOfField(field: string): number | undefined {
  const m = /^stages\[(\d+)\]/.exec(field);
  return m ? Number(m[1]) : undefined;
}
