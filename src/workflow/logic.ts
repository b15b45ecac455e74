import type { LogicCondition, Stage } from '../schemas/stage.js';
import type { TaskAnswer, TaskFacts } from './types.js';

export interface LogicInputs {
  taskId: string;
  /**
   * The task's externalId: RandomSample draws per (externalId, stage), so with
   * ANNOTARY_RANDOM_SEED the same assets are sampled again when the same data is imported anew
   * (task ids differ between imports, externalIds do not).
   */
  externalId: string;
  answer: TaskAnswer;
  facts: TaskFacts;
  /** [0, 1) draw for a key. */
  random: (key: string) => number;
  /** The schemaIds of the brush classes the task's brush layer paints (read only when asked). */
  brushClasses?: () => Promise<Set<string>>;
}

const answered = (v: unknown) => !(v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0));

/**
 * The schemaIds an answer holds: every tool object and relation, and every classification that
 * carries an answer, nested ones included (a classification's children, a tool object's own).
 * A classification saved without an answer does not "exist".
 */
export function schemaIdsIn(answer: TaskAnswer): Set<string> {
  const ids = new Set<string>();
  const walk = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const item of list as Record<string, unknown>[]) {
      if (typeof item?.schemaId === 'string' && answered(item.answer)) ids.add(item.schemaId);
      walk(item?.classifications);
    }
  };
  for (const item of [...answer.tools, ...answer.relations]) {
    if (typeof item.schemaId === 'string') ids.add(item.schemaId);
    walk(item.classifications);
  }
  walk(answer.classifications);
  return ids;
}

/** `exists___<id>` / `not-exist___<id>`; the id may itself contain `___`. */
export function parseToolFilter(filter: string): { exists: boolean; schemaId: string } | undefined {
  const at = filter.indexOf('___');
  const kind = filter.slice(0, at);
  const schemaId = filter.slice(at + 3);
  if (at < 0 || schemaId === '' || (kind !== 'exists' && kind !== 'not-exist')) return undefined;
  return { exists: kind === 'exists', schemaId };
}

/**
 * AnnotationType: every filter of every `tools` entry holds on the answer. A brush class exists
 * when the task's brush layer paints at least one pixel in it (`painted`).
 */
export function annotationTypeHolds(
  condition: LogicCondition,
  answer: TaskAnswer,
  painted: ReadonlySet<string> = new Set(),
): boolean {
  const present = schemaIdsIn(answer);
  for (const id of painted) present.add(id);
  const entries = condition.value?.tools ?? [];
  if (entries.length === 0) return false;
  return entries.every((entry) =>
    (entry.filter ?? []).every((filter) => {
      const parsed = parseToolFilter(filter);
      return parsed !== undefined && parsed.exists === present.has(parsed.schemaId);
    }),
  );
}

export function durationHolds(operator: string | undefined, actual: number, limit: number): boolean {
  if (operator === 'lt') return actual < limit;
  if (operator === 'gt') return actual > limit;
  return actual === limit;
}

async function holds(
  condition: LogicCondition,
  type: string | undefined,
  stage: Stage,
  input: LogicInputs,
): Promise<boolean> {
  const value = condition.value ?? {};
  switch (type) {
    case 'AnnotationType':
      return annotationTypeHolds(condition, input.answer, await input.brushClasses?.());
    case 'Annotator': {
      const who = (await input.facts.lastLabelSubmitter())?.trim().toLowerCase();
      return who !== undefined && (value.emails ?? []).some((e) => e.trim().toLowerCase() === who);
    }
    case 'RandomSample':
      return input.random(`${input.externalId}\u0000${stage.id}`) < (value.sampleRate ?? 0);
    case 'Duration':
      return durationHolds(value.operator, await input.facts.labelDuration(), value.duration ?? 0);
    case 'Batch': {
      const wanted = new Set(value.batches ?? []);
      return (await input.facts.batches()).some((b) => wanted.has(b.name) || wanted.has(b.id));
    }
    case 'IssueErrorCode': {
      const codes = await input.facts.openIssueErrorCodes();
      const wanted = (value as { errorCodes?: unknown }).errorCodes;
      if (!Array.isArray(wanted) || wanted.length === 0) return codes.length > 0;
      return codes.some((c) => wanted.includes(c));
    }
    default:
      return false;
  }
}

/**
 * Which `next` entry a Logic stage sends the task to: the first condition that holds leaves by
 * `next[condition.index]`; when none holds, the task leaves by the last entry (the else output).
 */
export async function evaluateLogic(stage: Stage, input: LogicInputs): Promise<string | undefined> {
  const next = stage.next ?? [];
  const logic = stage.logic;
  for (const condition of logic?.conditions ?? []) {
    if (await holds(condition, condition.type ?? logic?.type, stage, input)) {
      const target = next[condition.index];
      if (target !== undefined) return target;
    }
  }
  return next[next.length - 1];
}
