import type { CategorySchema } from '../../api/types';

/*
 * Readable ontology ids. A tool, question, option or relation added in the editor takes its
 * schemaId from its title (`Car` -> `car`, a second `Car` -> `car-2`), unique across the whole
 * ontology as the contract requires, and follows the title while it is typed. Once a person
 * types an id of their own, it stays as typed. Ids are what answers and exports name, so the
 * editor stops offering to change saved ones once the project has answers.
 *
 * Draft items carry two marks of the editor's own, never sent: `__key`, a stable React key
 * (the id may change as the title is typed), and `__auto`, "the id follows the title".
 */

export interface DraftMarks {
  __key?: string;
  __auto?: boolean;
}

type Item = Record<string, unknown> & DraftMarks;

/** The lists inside an item that hold further items: nested questions, options, an option's questions. */
const NESTED = ['classifications', 'options', 'children'] as const;

/** A copy of the ontology with `fn` applied to every item at every depth, parents first. */
export function mapItems(schema: CategorySchema, fn: (item: Item) => Item): CategorySchema {
  const walk = (item: Item): Item => {
    const own = fn(item);
    const out: Item = { ...own };
    for (const key of NESTED) {
      const list = own[key];
      if (Array.isArray(list)) out[key] = (list as Item[]).map(walk);
    }
    return out;
  };
  const list = <T>(items: T[]) => items.map((i) => walk(i as Item)) as T[];
  return {
    tools: list(schema.tools),
    classifications: list(schema.classifications),
    relations: list(schema.relations),
  };
}

/** Every item of the ontology, parents first. */
export function allItems(schema: CategorySchema): Item[] {
  const found: Item[] = [];
  mapItems(schema, (item) => {
    found.push(item);
    return item;
  });
  return found;
}

/** A title as an id: lower case ASCII letters and digits joined by single hyphens, at most 40 long. */
export function slugOf(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** `base`, else `base-2`, `base-3`... whichever is not taken; the taken set learns it. */
export function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** What an item's id is made from: its title (an option's value), else what it is. */
function nameOf(item: Item, fallback: string): string {
  const text = typeof item.title === 'string' ? item.title : typeof item.value === 'string' ? item.value : '';
  return slugOf(text) || fallback;
}

/**
 * The ontology with every id that follows its title made again: ids typed or saved stay, and
 * the others take the first free form of their title's slug, in the order the items appear.
 */
export function withReadableIds(schema: CategorySchema): CategorySchema {
  const taken = new Set(
    allItems(schema)
      .filter((i) => !i.__auto && typeof i.schemaId === 'string')
      .map((i) => String(i.schemaId)),
  );
  const fallback = (item: Item) => ('value' in item && !('tool' in item) ? 'option' : 'item');
  return mapItems(schema, (item) =>
    item.__auto ? { ...item, schemaId: uniqueId(nameOf(item, fallback(item)), taken) } : item,
  );
}

let counter = 0;
/** A React key for a draft item, stable while its id changes. */
export function draftKey(): string {
  counter += 1;
  return `k${counter}`;
}

/** The ontology as loaded, each item given its draft key. */
export function withDraftKeys(schema: CategorySchema): CategorySchema {
  return mapItems(schema, (item) => ({ ...item, __key: draftKey() }));
}

/** The ontology as it is sent: without the editor's marks. */
export function withoutDraftMarks(schema: CategorySchema): CategorySchema {
  return mapItems(schema, (item) => {
    const { __key: _key, __auto: _auto, ...rest } = item;
    return rest;
  });
}

/** The React key of a draft item. */
export const keyOf = (item: DraftMarks & { schemaId: string }) => item.__key ?? item.schemaId;
