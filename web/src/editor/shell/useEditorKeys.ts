import { useEffect, useRef } from 'react';

export type KeyAction =
  | { type: 'tool'; schemaId: string }
  | { type: 'select-mode' }
  | { type: 'escape' }
  | { type: 'enter' }
  | { type: 'delete' }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'zoom'; factor: number }
  | { type: 'fit' }
  | { type: 'pan'; dx: number; dy: number }
  /** `[` and `]`: a smaller or larger brush. */
  | { type: 'brush-size'; by: -1 | 1 }
  /** Shift+E: the eraser on or off. */
  | { type: 'eraser' };

/** Keys typed into a form field belong to the field, not to the editor. */
export function typingInField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable;
}

const PANS: Record<string, [number, number]> = {
  ArrowLeft: [1, 0],
  ArrowRight: [-1, 0],
  ArrowUp: [0, 1],
  ArrowDown: [0, -1],
};

/**
 * The editor's keyboard: tool shortcuts from the ontology, V/Escape to select, Enter to finish a
 * shape, Delete, Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y, + and - to zoom, 0 or F to fit, arrows to pan,
 * `[` and `]` for the brush's size, Shift+E for the eraser.
 */
export function useEditorKeys(shortcuts: Map<string, string>, onAction: (a: KeyAction) => void, enabled = true) {
  const latest = useRef(onAction);
  latest.current = onAction;
  useEffect(() => {
    if (!enabled) return;
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.altKey) return;
      const act = (a: KeyAction) => {
        e.preventDefault();
        latest.current(a);
      };
      const key = e.key.toLowerCase();
      if (e.ctrlKey || e.metaKey) {
        if (key === 'z') return act({ type: e.shiftKey ? 'redo' : 'undo' });
        if (key === 'y') return act({ type: 'redo' });
        return;
      }
      const pan = PANS[e.key];
      if (pan) return act({ type: 'pan', dx: pan[0], dy: pan[1] });
      if (e.key === 'Escape') return act({ type: 'escape' });
      if (e.key === 'Enter' && !(e.target instanceof HTMLButtonElement)) return act({ type: 'enter' });
      if (e.key === 'Delete' || e.key === 'Backspace') return act({ type: 'delete' });
      if (key === '+' || key === '=') return act({ type: 'zoom', factor: 1.25 });
      if (key === '-') return act({ type: 'zoom', factor: 0.8 });
      if (e.key === '[' || e.key === ']') return act({ type: 'brush-size', by: e.key === '[' ? -1 : 1 });
      if (e.shiftKey && key === 'e') return act({ type: 'eraser' });
      const tool = shortcuts.get(key);
      if (tool) return act({ type: 'tool', schemaId: tool });
      if (key === 'v') return act({ type: 'select-mode' });
      if (key === '0' || key === 'f') return act({ type: 'fit' });
    };
    window.addEventListener('keydown', handler);
    return () => window.removeEventListener('keydown', handler);
  }, [shortcuts, enabled]);
}
