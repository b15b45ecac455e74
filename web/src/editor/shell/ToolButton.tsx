import type { OntologyTool } from '../core/ontology';

export interface ToolButtonProps {
  tool: OntologyTool;
  color: string | undefined;
  /** Its key, lower-case, from the ontology or the digits given to the rest. */
  shortcut: string | undefined;
  /** What the button is called to a screen reader ("Car tool", "Tag as Person"). */
  label: string;
  /** A tool that stays chosen (drawing tools) says whether it is; an action (tag a span) does not. */
  pressed?: boolean;
  disabled?: boolean;
  title?: string;
  /** Keep the page's text selection: a mousedown on a button would clear it first. */
  keepSelection?: boolean;
  onClick(): void;
}

/** One of the ontology's tools in the toolbar: its colour, its title and its key. */
export function ToolButton(p: ToolButtonProps) {
  const key = p.shortcut?.toUpperCase();
  return (
    <button
      type="button"
      aria-pressed={p.pressed}
      disabled={p.disabled}
      onClick={p.onClick}
      onMouseDown={p.keepSelection ? (e) => e.preventDefault() : undefined}
      aria-keyshortcuts={key}
      aria-label={p.label}
      title={p.title}
    >
      <span className="swatch" style={{ background: p.color }} aria-hidden="true" />
      {p.tool.title}
      {key && <kbd>{key}</kbd>}
    </button>
  );
}
