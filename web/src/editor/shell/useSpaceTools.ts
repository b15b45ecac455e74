import { useMemo } from 'react';
import { shortcutMap, toolColor, toolsOfSpace, type Ontology, type OntologyTool } from '../core/ontology';
import type { ToolSpace } from '../core/tool';

/**
 * The ontology's tools a surface hosts (those of its space), with their colours and keys:
 * `keyOf` answers a tool's key (lower-case), `shortcuts` maps keys to tools for the keyboard.
 */
export function useSpaceTools(ontology: Ontology, space: ToolSpace) {
  return useMemo(() => {
    const tools = toolsOfSpace(ontology, space);
    const colors = new Map(tools.map((t, i) => [t.schemaId, toolColor(t, i)]));
    const shortcuts = shortcutMap({ tools });
    const keyOf = (schemaId: string) => [...shortcuts].find(([, id]) => id === schemaId)?.[0];
    /** What a ToolButton shows of a tool: the tool, its colour and its key. */
    const buttonOf = (tool: OntologyTool) => ({
      tool,
      color: colors.get(tool.schemaId),
      shortcut: keyOf(tool.schemaId),
    });
    return { tools, colors, shortcuts, keyOf, buttonOf };
  }, [ontology, space]);
}
