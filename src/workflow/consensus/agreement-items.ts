import { createHash } from 'node:crypto';
import type { CategorySchema } from '../../schemas/category-schema.js';
import type { TaskAnswer } from '../types.js';
import { brushAgreement, brushClasses, classificationAnswers, ontologyQuestions, toolAgreement } from './score.js';
import { type BrushClasses, isScoredKind, scoredObjects } from './similarity.js';
import { pointAgreement } from './point-agreement.js';
import { type VoxelClasses, voxelAgreement, voxelClasses } from './voxel-overlap.js';

/**
 * What one decided consensus round measured, per ontology item, as the Quality page keeps it:
 * a tool with a measure (similarity.ts) that a copy used gives one item, the copies' mean pairwise
 * agreement (as the round's score counts it: IoU for boxes, polygons and zones, 3D IoU for a
 * point cloud's cuboids, distance for points and polylines, overlap for NER spans); a classification question a copy answered gives
 * one item per pair of copies (earlier copy first), their two answers, so agreement can be read
 * as Cohen's kappa over many rounds. A brush class a copy's layer paints gives one item, the
 * copies' mean pairwise IoU of that class's pixels; a medical-brush class a copy's voxel layer
 * gives, one item, the copies' mean pairwise Dice of its voxels; a class some copy's point labels
 * give a point, one item, the copies' mean pairwise IoU of its points. Copies come in the order
 * they were submitted.
 */
export interface AgreementItem {
  schemaId: string;
  kind: 'tool' | 'classification';
  /** Earlier and later copy's answer ('' unanswered); '' for tools. */
  answerA: string;
  answerB: string;
  /** Tools: mean pairwise agreement; classifications: 1 when both gave the same answer, else 0. */
  value: number;
}

/** Answers longer than this are kept as a digest: equal answers still compare equal. */
const KEPT_ANSWER_LENGTH = 200;

function kept(answer: string | undefined): string {
  if (answer === undefined) return '';
  if (answer.length <= KEPT_ANSWER_LENGTH) return answer;
  return `sha256:${createHash('sha256').update(answer).digest('hex')}`;
}

export function agreementItems(
  copies: readonly TaskAnswer[],
  schema: CategorySchema,
  layers: readonly (BrushClasses | undefined)[] = [],
  lastFrame?: number,
  voxels: readonly (VoxelClasses | undefined)[] = [],
): AgreementItem[] {
  if (copies.length < 2) return [];
  const items: AgreementItem[] = [];
  const answers = copies.map(classificationAnswers);
  for (const id of new Set(ontologyQuestions(schema))) {
    const values = answers.map((a) => kept(a.get(id)));
    if (values.every((v) => v === '')) continue;
    for (let i = 0; i < values.length; i += 1) {
      for (let j = i + 1; j < values.length; j += 1) {
        const [a, b] = [values[i] ?? '', values[j] ?? ''];
        items.push({ schemaId: id, kind: 'classification', answerA: a, answerB: b, value: a === b ? 1 : 0 });
      }
    }
  }
  for (const tool of schema.tools ?? []) {
    if (!isScoredKind(tool.tool)) continue;
    const perCopy = copies.map((c) => scoredObjects(tool.tool, tool.schemaId, c.tools));
    if (!perCopy.some((list) => list.length > 0)) continue;
    items.push({
      schemaId: tool.schemaId,
      kind: 'tool',
      answerA: '',
      answerB: '',
      value: toolAgreement(tool.tool, perCopy, lastFrame),
    });
  }
  for (const { schemaId, value } of brushClasses(schema)) {
    const agreed = brushAgreement(
      copies.map((_, k) => layers[k]),
      value,
    );
    if (agreed !== undefined) items.push({ schemaId, kind: 'tool', answerA: '', answerB: '', value: agreed });
  }
  const classes = voxelClasses(schema);
  const measured = voxelAgreement(
    copies.map((_, k) => voxels[k]),
    classes.map((c) => c.value),
  );
  for (const { schemaId, value } of classes) {
    const overlap = measured.get(value);
    if (overlap) items.push({ schemaId, kind: 'tool', answerA: '', answerB: '', value: overlap.dice });
  }
  for (const { schemaId, value } of pointAgreement(copies, schema)) {
    items.push({ schemaId, kind: 'tool', answerA: '', answerB: '', value });
  }
  return items;
}
