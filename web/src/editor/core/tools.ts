import type { DrawableKind, Geometry } from './answer';
import type { AnyTool, DocumentTool, PlaneTool, TextTool } from './tool';

/**
 * The tool registry: every folder of tools/ with an index.ts whose default export is a Tool.
 * A new tool kind is a new folder; nothing here or elsewhere names it.
 */
const modules = import.meta.glob<{ default: AnyTool }>('../tools/*/index.ts', { eager: true });
const TOOLS = new Map<string, AnyTool>(Object.values(modules).map((m) => [m.default.kind, m.default]));

export function allTools(): AnyTool[] {
  return [...TOOLS.values()];
}

export function toolFor(kind: string): AnyTool | undefined {
  return TOOLS.get(kind);
}

/** Can the editor draw this ontology tool kind at all? */
export function isDrawable(kind: string): kind is DrawableKind {
  return TOOLS.has(kind);
}

export function planeTool(kind: string): PlaneTool | undefined {
  const tool = TOOLS.get(kind);
  return tool?.space === 'plane' ? tool : undefined;
}

export function textTool(kind: string): TextTool | undefined {
  const tool = TOOLS.get(kind);
  return tool?.space === 'text' ? tool : undefined;
}

/** The tool of a geometry's kind: every Geometry's kind is registered (its type comes from the folder). */
export function toolOf(g: Geometry): AnyTool {
  const tool = TOOLS.get(g.kind);
  if (!tool) throw new Error(`no tool for ${g.kind}`);
  return tool;
}

export function documentTool(kind: string): DocumentTool | undefined {
  const tool = TOOLS.get(kind);
  return tool?.space === 'document' ? tool : undefined;
}
