import type { OntologyClassification, OntologyTool } from './ontology';
import type { AnswerValue, ClassificationAnswer, EditorAnswer, EditorObject, Geometry } from './answer';
import { newId } from './codec';
import { defaultAnswers } from './validate';

/**
 * Pure edits of an answer: each returns a new answer, so the undo history keeps snapshots and
 * React sees changes.
 */

/** Adds a drawn object; a tool with `multiple: false` keeps only its newest object. */
export function addObject(
  a: EditorAnswer,
  tool: OntologyTool,
  geometry: Geometry,
): { answer: EditorAnswer; objectId: string } {
  const objectId = newId();
  const object: EditorObject = {
    objectId,
    schemaId: tool.schemaId,
    geometry,
    classifications: defaultAnswers(tool.classifications),
    extra: {},
  };
  const replaced = tool.multiple === false ? a.objects.filter((o) => o.schemaId === tool.schemaId) : [];
  let answer: EditorAnswer = { ...a, objects: [...a.objects, object] };
  for (const old of replaced) answer = deleteObject(answer, old.objectId);
  return { answer, objectId };
}

export function updateGeometry(a: EditorAnswer, objectId: string, geometry: Geometry): EditorAnswer {
  return { ...a, objects: a.objects.map((o) => (o.objectId === objectId ? { ...o, geometry } : o)) };
}

/** Removes an object and every relation that would be left pointing at it. */
export function deleteObject(a: EditorAnswer, objectId: string): EditorAnswer {
  return {
    ...a,
    objects: a.objects.filter((o) => o.objectId !== objectId),
    relations: a.relations
      .map((r) => ({ ...r, objectIds: r.objectIds.filter((id) => id !== objectId) }))
      .filter((r) => r.objectIds.length >= 2),
  };
}

export function setObjectClassifications(
  a: EditorAnswer,
  objectId: string,
  classifications: ClassificationAnswer[],
): EditorAnswer {
  return { ...a, objects: a.objects.map((o) => (o.objectId === objectId ? { ...o, classifications } : o)) };
}

/** A relation between objects: one-to-one takes exactly two, group two or more. */
export function addRelation(a: EditorAnswer, schemaId: string, objectIds: string[]): EditorAnswer {
  const unique = [...new Set(objectIds)];
  if (unique.length < 2) return a;
  return { ...a, relations: [...a.relations, { relationId: newId(), schemaId, objectIds: unique, extra: {} }] };
}

export function deleteRelation(a: EditorAnswer, relationId: string): EditorAnswer {
  return { ...a, relations: a.relations.filter((r) => r.relationId !== relationId) };
}

function chosen(v: AnswerValue): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v;
  return [];
}

/**
 * Sets one question's answer in a list of answers. Nested answers under options that are no
 * longer chosen are dropped, so an export never carries answers to questions nobody was asked.
 */
export function setQuestion(
  list: ClassificationAnswer[],
  q: OntologyClassification,
  value: AnswerValue,
): ClassificationAnswer[] {
  const existing = list.find((x) => x.schemaId === q.schemaId);
  const keepIds = new Set<string>((q.classifications ?? []).map((c) => c.schemaId));
  for (const option of q.options ?? []) {
    if (chosen(value).includes(option.schemaId)) for (const c of option.children ?? []) keepIds.add(c.schemaId);
  }
  const nested = (existing?.classifications ?? []).filter((c) => keepIds.has(c.schemaId));
  const next: ClassificationAnswer = {
    schemaId: q.schemaId,
    answer: value,
    ...(nested.length ? { classifications: nested } : {}),
  };
  return existing ? list.map((x) => (x.schemaId === q.schemaId ? next : x)) : [...list, next];
}

/** Replaces the nested answers of one question (the UI's recursion writes through this). */
export function setNested(
  list: ClassificationAnswer[],
  questionId: string,
  nested: ClassificationAnswer[],
): ClassificationAnswer[] {
  const existing = list.find((x) => x.schemaId === questionId);
  const next: ClassificationAnswer = {
    schemaId: questionId,
    answer: existing?.answer ?? null,
    classifications: nested,
  };
  return existing ? list.map((x) => (x.schemaId === questionId ? next : x)) : [...list, next];
}
