import type { Ontology, OntologyClassification } from './ontology';
import type { AnswerValue, ClassificationAnswer, EditorAnswer } from './answer';

/** One thing that stops a submit, said so a person can find it. */
export interface Problem {
  /** The question or tool it is about. */
  schemaId: string;
  /** The object whose nested question it is, when it is one. */
  objectId?: string;
  message: string;
}

export function isAnswered(v: AnswerValue | undefined): boolean {
  return !(v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0));
}

function chosen(v: AnswerValue | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v;
  return [];
}

/** A text answer against the question's `regex`; null when fine. */
export function textProblem(q: OntologyClassification, value: AnswerValue | undefined): string | null {
  if (q.tool !== 'text' || !q.regex || typeof value !== 'string' || value === '') return null;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${q.regex})$`, 'u');
  } catch {
    return null; // an ontology regex the browser cannot read is the ontology's problem, not the labeler's
  }
  return pattern.test(value) ? null : `does not match the expected format (${q.regex})`;
}

/**
 * Required questions left open and malformed text, at every depth: questions nested under an
 * option count only when that option is chosen; questions nested under a question always do.
 */
export function checkQuestions(
  questions: OntologyClassification[] | undefined,
  answers: ClassificationAnswer[],
  objectId?: string,
): Problem[] {
  const problems: Problem[] = [];
  for (const q of questions ?? []) {
    const a = answers.find((x) => x.schemaId === q.schemaId);
    const where = objectId ? { objectId } : {};
    if (q.required && !isAnswered(a?.answer)) {
      problems.push({ schemaId: q.schemaId, ...where, message: `"${q.title}" is required` });
    }
    const text = textProblem(q, a?.answer);
    if (text) problems.push({ schemaId: q.schemaId, ...where, message: `"${q.title}" ${text}` });
    const nested = a?.classifications ?? [];
    problems.push(...checkQuestions(q.classifications, nested, objectId));
    for (const option of q.options ?? []) {
      if (chosen(a?.answer).includes(option.schemaId))
        problems.push(...checkQuestions(option.children, nested, objectId));
    }
  }
  return problems;
}

/** Everything that stops a submit: required questions, required tools, per-object questions. */
export function submitProblems(answer: EditorAnswer, ontology: Ontology): Problem[] {
  const problems = checkQuestions(ontology.classifications, answer.classifications);
  for (const tool of ontology.tools ?? []) {
    const objects = answer.objects.filter((o) => o.schemaId === tool.schemaId);
    if (tool.required && objects.length === 0) {
      problems.push({ schemaId: tool.schemaId, message: `draw at least one "${tool.title}"` });
    }
    for (const o of objects) problems.push(...checkQuestions(tool.classifications, o.classifications, o.objectId));
  }
  return problems;
}

/** Answers for the questions that have a `defaultValue`, as a fresh answer starts. */
export function defaultAnswers(questions: OntologyClassification[] | undefined): ClassificationAnswer[] {
  const out: ClassificationAnswer[] = [];
  for (const q of questions ?? []) {
    if (q.defaultValue === undefined) continue;
    const value = q.tool === 'checkbox' || q.tool === 'multi-dropdown' ? [String(q.defaultValue)] : q.defaultValue;
    out.push({ schemaId: q.schemaId, answer: value });
  }
  return out;
}
