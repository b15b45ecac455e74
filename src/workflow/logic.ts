import type { LogicCondition, Stage } from '../schemas/stage.js';
import type { TaskAnswer, TaskFacts } from './types.js';

export interface LogicInputs {
  taskId: string;
  answer: TaskAnswer;
  facts: TaskFacts;
  /** [0, 1) draw for a key. */
  random: (key: string) => number;
}

function schemaIdsIn(answer: TaskAnswer): Set<string> {
  const ids = new Set<string>();
  for (const list of [answer.tools, answer.classifications, answer.relations]) {
    for (const item of list) if (typeof item.schemaId === 'string') ids.add(item.schemaId);
  }
  return ids;
}

/** AnnotationType: every filter of every `tools` entry holds on the answer. */
export function annotationTypeHolds(condition: LogicCondition, answer: TaskAnswer): boolean {
  const present = schemaIdsIn(answer);
  const entries = condition.value?.tools ?? [];
  if (entries.length === 0) return false;
  return entries.every((entry) =>
    (entry.filter ?? []).every((filter) => {
      const [kind, schemaId] = filter.split('___', 2);
      if (!schemaId) return false;
      return kind === 'exists' ? present.has(schemaId) : !present.has(schemaId);
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
      return annotationTypeHolds(condition, input.answer);
    case 'Annotator': {
      const who = (await input.facts.lastLabelSubmitter())?.toLowerCase();
      return who !== undefined && (value.emails ?? []).some((e) => e.toLowerCase() === who);
    }
    case 'RandomSample':
      return input.random(`${input.taskId}:${stage.id}`) < (value.sampleRate ?? 0);
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
