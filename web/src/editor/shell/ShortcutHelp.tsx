import { useEffect, useRef, useState } from 'react';
import { WORK_KEYS, type KeyRow } from './editor-keys';
import { typingInField } from './useEditorKeys';

export interface ShortcutHelpProps {
  /** The tools of the surface and their keys (the ontology's, or 1 to 9 in order). */
  tools: { key: string; title: string }[];
  /** The medium's own keys. */
  keys: readonly KeyRow[];
}

/**
 * The editor's help: `?` (or the toolbar's button) opens a dialog listing every key of the
 * current tools and medium; Escape or Close shuts it and gives the focus back.
 */
export function ShortcutHelp({ tools, keys }: ShortcutHelpProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);

  // Caught before the editor's own keys: while the list is open no key reaches the editor, and
  // Escape keeps its default (the dialog's cancel, which closes it).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const shown = dialog.current?.open ?? false;
      if (shown) e.stopPropagation();
      if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || typingInField(e.target)) return;
      e.preventDefault();
      setOpen(!shown);
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, []);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  const rows: KeyRow[] = [
    ...tools.map((t) => ({ keys: t.key.toUpperCase(), does: `${t.title} tool` })),
    ...keys,
    ...WORK_KEYS,
  ];
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="?"
        aria-label="Keyboard shortcuts"
        title="Keyboard shortcuts (?)"
      >
        ?
      </button>
      <dialog
        ref={dialog}
        className="shortcut-help"
        aria-labelledby="shortcut-help-title"
        onClose={() => setOpen(false)}
      >
        <h2 id="shortcut-help-title">Keyboard shortcuts</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">What it does</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.keys}:${r.does}`}>
                <td>
                  <kbd>{r.keys}</kbd>
                </td>
                <td>{r.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={() => setOpen(false)}>
          Close
        </button>
      </dialog>
    </>
  );
}
