import {
  type ContractClassificationKind,
  type ContractRelationKind,
  type ContractToolKind,
  covers,
} from '../../api/contract';
import type { CategorySchema, Classification, ClassificationOption, Relation, Tool } from '../../api/types';

/** Every tool but `pct`, which belongs to point-cloud projects (made by the API, not here). */
export const TOOL_KINDS = [
  'bounding-box',
  'polygon',
  'polyline',
  'point',
  'rotated-bounding-box',
  'segmentation',
  'brush',
  'medical-brush',
  'ner',
  'pdf',
  'angle',
] as const satisfies readonly ContractToolKind[];

export const CLASSIFICATION_KINDS = covers<ContractClassificationKind>()([
  'radio',
  'checkbox',
  'single-dropdown',
  'multi-dropdown',
  'tree-dropdown',
  'single-tree-dropdown',
  'text',
  'boolean',
] as const);

/** Classification kinds whose answer is picked from options. */
export const WITH_OPTIONS: ReadonlySet<string> = new Set(['radio', 'checkbox', 'single-dropdown', 'multi-dropdown']);

/** The editor draws one-to-one and group relations; `one-to-many` is kept as the API stores it. */
export const RELATION_KINDS = ['one-to-one', 'group'] as const satisfies readonly ContractRelationKind[];

/** A fresh schemaId: the id answers and exports refer to; short and random, never reused. */
export function newSchemaId(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 12);
}

/** A palette to start from, so neighbouring tools differ at a glance. */
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324'];

export const blankTool = (n: number): Tool => ({
  schemaId: newSchemaId(),
  title: '',
  tool: 'bounding-box',
  color: PALETTE[n % PALETTE.length],
  classifications: [],
});

export const blankClassification = (): Classification => ({
  schemaId: newSchemaId(),
  title: '',
  tool: 'radio',
  options: [],
  classifications: [],
});

export const blankOption = (): ClassificationOption => ({ schemaId: newSchemaId(), value: '', children: [] });

export const blankRelation = (n: number): Relation => ({
  schemaId: newSchemaId(),
  title: '',
  tool: 'one-to-one',
  color: PALETTE[(n + 4) % PALETTE.length],
});

export function emptySchema(schema: Partial<CategorySchema> | undefined): CategorySchema {
  return {
    tools: schema?.tools ?? [],
    classifications: schema?.classifications ?? [],
    relations: schema?.relations ?? [],
  };
}

/** Replaces item i of a list (lists are edited immutably, like the rest of the draft). */
export function replaceAt<T>(list: readonly T[], i: number, item: T): T[] {
  return list.map((old, k) => (k === i ? item : old));
}

export function removeAt<T>(list: readonly T[], i: number): T[] {
  return list.filter((_, k) => k !== i);
}
