import {
  type ContractClassificationKind,
  type ContractRelationKind,
  type ContractToolKind,
  covers,
} from '../../api/contract';
import type { FieldError } from '../../api/client';
import type { CategorySchema, Classification, ClassificationOption, Relation, Tool } from '../../api/types';
import { draftKey } from './readable-ids';

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

/** What each kind is called in the editor: the contract's ids are for machines. */
export const KIND_NAMES: Readonly<Record<string, string>> = {
  'bounding-box': 'Box',
  polygon: 'Polygon',
  polyline: 'Polyline',
  point: 'Point',
  'rotated-bounding-box': 'Rotated box',
  segmentation: 'Segmentation',
  brush: 'Brush',
  'medical-brush': 'Medical brush',
  ner: 'Text span (NER)',
  pdf: 'PDF area',
  angle: 'Angle',
  pct: 'Point cloud',
  radio: 'One choice (radio)',
  checkbox: 'Several choices (checkboxes)',
  'single-dropdown': 'One choice (dropdown)',
  'multi-dropdown': 'Several choices (dropdown)',
  'tree-dropdown': 'Several choices (tree)',
  'single-tree-dropdown': 'One choice (tree)',
  text: 'Free text',
  boolean: 'Yes or no',
  'one-to-one': 'One to one',
  group: 'Group',
  'one-to-many': 'One to many',
};

/** A kind list as a select's options, each by its name; a stored kind the list lacks is kept. */
export function kindOptions<K extends string>(kinds: readonly K[], current: K): { value: K; label: string }[] {
  const all = kinds.includes(current) ? kinds : [...kinds, current];
  return all.map((k) => ({ value: k, label: KIND_NAMES[k] ?? k }));
}

/** A new item's marks: its id follows its title (readable-ids.ts) until someone types one. */
const fresh = () => ({ schemaId: '', __key: draftKey(), __auto: true });

/** A palette to start from, so neighbouring tools differ at a glance. */
const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324'];

export const blankTool = (n: number): Tool => ({
  ...fresh(),
  title: '',
  tool: 'bounding-box',
  color: PALETTE[n % PALETTE.length],
  // Most tools mark many objects in an asset (every car in the street), so a new tool allows
  // many; the contract's default (false) still applies to ontologies written without the flag.
  multiple: true,
  classifications: [],
});

export const blankClassification = (): Classification => ({
  ...fresh(),
  title: '',
  tool: 'radio',
  options: [],
  classifications: [],
});

export const blankOption = (): ClassificationOption => ({ ...fresh(), value: '', children: [] });

export const blankRelation = (n: number): Relation => ({
  ...fresh(),
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

const TITLE_REQUIRED = 'a title is required';

function untitledQuestions(items: readonly Classification[], path: string): FieldError[] {
  return items.flatMap((c, i) => {
    const at = `${path}[${i}]`;
    const own = c.title.trim() === '' ? [{ field: `${at}.title`, message: TITLE_REQUIRED }] : [];
    const nested = (c.options ?? []).flatMap((o, k) =>
      untitledQuestions(o.children ?? [], `${at}.options[${k}].children`),
    );
    return [...own, ...nested];
  });
}

/**
 * The items saved without a title, as field errors on their title box. The API stores an empty
 * title, but the labelers would then see a tool or question with no name, so the form refuses it.
 */
export function untitled(schema: CategorySchema): FieldError[] {
  const blank = (list: readonly { title: string }[], path: string): FieldError[] =>
    list.flatMap((item, i) =>
      item.title.trim() === '' ? [{ field: `${path}[${i}].title`, message: TITLE_REQUIRED }] : [],
    );
  return [
    ...blank(schema.tools, 'categorySchema.tools'),
    ...schema.tools.flatMap((t, i) =>
      untitledQuestions(t.classifications ?? [], `categorySchema.tools[${i}].classifications`),
    ),
    ...untitledQuestions(schema.classifications, 'categorySchema.classifications'),
    ...blank(schema.relations, 'categorySchema.relations'),
  ];
}
