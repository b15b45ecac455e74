import type { CategorySchema, Classification, Tool, ToolKind } from '../../../schemas/category-schema.js';

/*
 * The ontology as dataset formats see it: each tool is a class (COCO category, YOLO class, VOC
 * name, CVAT label), numbered in ontology order; classification answers become readable
 * attributes (an option's value, not its schemaId).
 */

export interface DatasetClass {
  /** 0-based, in ontology order among the tools. */
  index: number;
  schemaId: string;
  /** The title (what people read), or the schemaId when the title is empty. */
  name: string;
  tool: ToolKind;
  color: string | undefined;
}

export interface DatasetOntology {
  classes: DatasetClass[];
  byId: Map<string, DatasetClass>;
  /** Every classification at any depth, by schemaId. */
  questions: Map<string, Classification>;
  /** Top-level classification ids, in order (image-level attributes). */
  topQuestions: Classification[];
}

export function datasetOntology(schema: CategorySchema): DatasetOntology {
  const tools: Tool[] = schema.tools ?? [];
  const classes = tools.map((t, index) => ({
    index,
    schemaId: t.schemaId,
    name: t.title.trim() || t.schemaId,
    tool: t.tool,
    color: t.color,
  }));
  const questions = new Map<string, Classification>();
  const walk = (list: readonly Classification[] | undefined) => {
    for (const c of list ?? []) {
      questions.set(c.schemaId, c);
      walk(c.classifications);
      for (const o of c.options ?? []) walk(o.children);
    }
  };
  walk(schema.classifications);
  for (const t of tools) walk(t.classifications);
  return {
    classes,
    byId: new Map(classes.map((c) => [c.schemaId, c])),
    questions,
    topQuestions: schema.classifications ?? [],
  };
}

/** A question's title, or its schemaId. */
export function questionName(q: Classification | undefined, schemaId: string): string {
  return q?.title.trim() || schemaId;
}

/** An option id as its value (what the person chose), or the answer as given. */
function optionValue(q: Classification | undefined, answer: unknown): unknown {
  if (typeof answer !== 'string') return answer;
  const option = q?.options?.find((o) => o.schemaId === answer);
  return option ? option.value : answer;
}

/** An answer made readable: option ids become option values, lists stay lists. */
export function readableAnswer(q: Classification | undefined, answer: unknown): unknown {
  return Array.isArray(answer) ? answer.map((a) => optionValue(q, a)) : optionValue(q, answer);
}

/** Text of an answer for formats that hold strings only (lists joined by commas). */
export function answerText(value: unknown): string {
  if (Array.isArray(value)) return value.map(answerText).join(',');
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Classification answers as `{title: readable answer}` (later answers of one title win). */
export function attributesOf(
  ontology: DatasetOntology,
  answers: readonly Record<string, unknown>[] | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of answers ?? []) {
    const id = String(a.schemaId);
    const q = ontology.questions.get(id);
    out[questionName(q, id)] = readableAnswer(q, a.answer);
  }
  return out;
}
