import type { ToolSpace } from './tool';
import { isDrawable, toolFor } from './tools';

/** The parts of the project's ontology (categorySchema) the editor reads. */
export interface OntologyOption {
  schemaId: string;
  value: string;
  children?: OntologyClassification[];
}

export interface OntologyClassification {
  schemaId: string;
  title: string;
  tool: string;
  /** A video's question answered from a frame on (not for the whole video). */
  frameSpecific?: boolean;
  required?: boolean;
  richText?: boolean;
  regex?: string | null;
  shortcutKey?: string;
  defaultValue?: boolean | string | number;
  options?: OntologyOption[];
  treeOptions?: Record<string, unknown>[];
  classifications?: OntologyClassification[];
}

export interface OntologyTool {
  schemaId: string;
  title: string;
  tool: string;
  color?: string;
  shortcutKey?: string;
  required?: boolean;
  multiple?: boolean;
  /** A `pdf` tool's areas keep their picture (`content.image`, a PNG data URL). */
  areaImage?: boolean;
  classifications?: OntologyClassification[];
}

export interface OntologyRelation {
  schemaId: string;
  title: string;
  tool: string;
  color?: string;
  shortcutKey?: string;
}

export interface Ontology {
  tools?: OntologyTool[];
  classifications?: OntologyClassification[];
  relations?: OntologyRelation[];
}

const PALETTE = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324'];

export function toolColor(tool: OntologyTool, index: number): string {
  return tool.color ?? PALETTE[index % PALETTE.length] ?? '#e6194b';
}

/** The ontology's tools a surface of this space hosts, in ontology order. */
export function toolsOfSpace(ontology: Ontology, space: ToolSpace): OntologyTool[] {
  return (ontology.tools ?? []).filter((t) => toolFor(t.tool)?.space === space);
}

/** The ontology's tools drawn on a plane (an image): boxes, polygons, points... */
export const imageTools = (ontology: Ontology) => toolsOfSpace(ontology, 'plane');

/** The ontology's tools that mark a text: entity spans. */
export const textTools = (ontology: Ontology) => toolsOfSpace(ontology, 'text');

/**
 * Shortcut keys of the ontology's tools and relations, lower-cased. Tools without one get the
 * digits 1-9 in ontology order, as most editors do, unless the ontology already uses that digit.
 */
export function shortcutMap(ontology: Ontology): Map<string, string> {
  const keys = new Map<string, string>();
  const tools = ontology.tools ?? [];
  for (const t of tools) if (t.shortcutKey) keys.set(t.shortcutKey.toLowerCase(), t.schemaId);
  let digit = 1;
  for (const t of tools) {
    if (t.shortcutKey || !isDrawable(t.tool)) continue;
    while (digit <= 9 && keys.has(String(digit))) digit++;
    if (digit > 9) break;
    keys.set(String(digit), t.schemaId);
    digit++;
  }
  return keys;
}

/** Every question at any depth, by schemaId (for titles and kinds of nested answers). */
export function indexClassifications(ontology: Ontology): Map<string, OntologyClassification> {
  const all = new Map<string, OntologyClassification>();
  const walk = (list: OntologyClassification[] | undefined) => {
    for (const c of list ?? []) {
      all.set(c.schemaId, c);
      walk(c.classifications);
      for (const o of c.options ?? []) walk(o.children);
    }
  };
  walk(ontology.classifications);
  for (const t of ontology.tools ?? []) walk(t.classifications);
  return all;
}
