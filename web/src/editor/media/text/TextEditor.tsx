import { ErrorNotice } from '../../../components/ErrorNotice';
import { type MouseEvent as ReactMouseEvent, type ReactNode, useRef, useState } from 'react';
import type { Geometry } from '../../core/answer';
import { addObject, deleteObject } from '../../core/edit';
import type { SurfaceEditorProps } from '../../core/surface';
import { textTool } from '../../core/tools';
import type { Ontology } from '../../core/ontology';
import { segments, toCodePoints } from './spans';
import type { EditorAnswer } from '../../core/answer';
import type { Problem } from '../../core/validate';
import { EditorShell } from '../../shell/EditorShell';
import { TEXT_KEYS } from '../../shell/editor-keys';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { useSpaceTools } from '../../shell/useSpaceTools';
import { useEditorKeys } from '../../shell/useEditorKeys';

export interface TextEditorProps {
  ontology: Ontology;
  text: string | undefined;
  initial: EditorAnswer;
  onChange(answer: EditorAnswer): void;
  problems: Problem[];
  readOnly?: boolean;
  actions?: ReactNode;
  aside?: ReactNode;
  /** Why the text could not be loaded, when it could not. */
  textError?: string;
  /** Review: a click on the text raises an issue at that character (code points) instead. */
  onPickChar?(index: number): void;
}

/** UTF-16 offset of a point in the text container (its text is the asset's text, in pieces). */
function offsetIn(container: HTMLElement, node: Node, offset: number): number {
  const range = document.createRange();
  range.setStart(container, 0);
  range.setEnd(node, offset);
  return range.toString().length;
}

/**
 * Text assets: select a span with the mouse (or keyboard selection), then pick the entity with
 * its button or shortcut key; the answer holds `{ner: {start, end}}` in code points.
 */
export function TextEditor(props: TextEditorProps) {
  const { ontology, text, readOnly, onChange } = props;
  const { answer, change, travel } = useAnswerHistory(props.initial, onChange);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const box = useRef<HTMLDivElement>(null);
  const { tools, colors, shortcuts, keyOf, buttonOf } = useSpaceTools(ontology, 'text');

  const tag = (schemaId: string) => {
    const tool = tools.find((t) => t.schemaId === schemaId);
    const selection = window.getSelection();
    const container = box.current;
    if (!tool || !selection || selection.rangeCount === 0 || !container || text === undefined || readOnly) return;
    const range = selection.getRangeAt(0);
    if (range.collapsed || !container.contains(range.commonAncestorContainer)) {
      setHint('Select some text first, then choose the entity.');
      return;
    }
    const from = offsetIn(container, range.startContainer, range.startOffset);
    const to = offsetIn(container, range.endContainer, range.endOffset);
    // The selection is the gesture: pressed where it starts, released where it ends (code points).
    const marker = textTool(tool.tool);
    const pressed = marker?.press(null, toCodePoints(text, from), { scale: 1 }).drawing;
    const made = marker && pressed ? marker.release(pressed, toCodePoints(text, to), { scale: 1 }).done : undefined;
    if (!marker || made === undefined) return;
    const added = addObject(answer, tool, { kind: marker.kind, value: made } as Geometry);
    change(added.answer);
    setSelectedId(added.objectId);
    selection.removeAllRanges();
    setHint(undefined);
  };

  useEditorKeys(shortcuts, (a) => {
    if (a.type === 'tool') tag(a.schemaId);
    else if (a.type === 'undo' || a.type === 'redo') {
      if (!readOnly) travel(a.type);
    } else if (a.type === 'delete' && selectedId && !readOnly) {
      change(deleteObject(answer, selectedId));
      setSelectedId(undefined);
    } else if (a.type === 'escape') setSelectedId(undefined);
  });

  const pick = (e: ReactMouseEvent) => {
    const container = box.current;
    if (!props.onPickChar || !container || text === undefined) return;
    const caret = document.caretRangeFromPoint?.(e.clientX, e.clientY);
    if (!caret || !container.contains(caret.startContainer)) return;
    props.onPickChar(toCodePoints(text, offsetIn(container, caret.startContainer, caret.startOffset)));
  };

  const pieces = text === undefined ? [] : segments(text, answer.objects);
  const titleOf = (id: string) => tools.find((t) => t.schemaId === id)?.title ?? id;

  const toolbar = (
    <>
      {tools.length === 0 && <span className="muted">This project has no entity (NER) tools.</span>}
      {tools.map((t) => (
        <ToolButton
          key={t.schemaId}
          {...buttonOf(t)}
          label={`Tag as ${t.title}`}
          disabled={readOnly}
          keepSelection
          onClick={() => tag(t.schemaId)}
        />
      ))}
      {hint && (
        <span className="hint" role="status">
          {hint}
        </span>
      )}
    </>
  );

  return (
    <EditorShell
      className="image-editor text-editor"
      toolbarLabel="Entities"
      toolbar={toolbar}
      help={{
        tools: tools.map((t) => ({ key: keyOf(t.schemaId) ?? '', title: t.title })).filter((t) => t.key),
        keys: TEXT_KEYS,
      }}
      given={props}
      editing={{ answer, colors, selectedId, onSelect: setSelectedId, onChange: change }}
    >
      <div className="text-canvas">
        {text === undefined ? (
          props.textError ? (
            <ErrorNotice place="form" error={`The text could not be loaded: ${props.textError}.`} />
          ) : (
            <p className="muted">Loading the text…</p>
          )
        ) : (
          <div
            ref={box}
            className={props.onPickChar ? 'text-content picking' : 'text-content'}
            aria-label="Text to annotate"
            role="document"
            onClick={pick}
          >
            {pieces.map((s) => {
              const piece = text.slice(s.from, s.to);
              const top = s.objects[s.objects.length - 1];
              if (!top) return <span key={s.from}>{piece}</span>;
              const color = colors.get(top.schemaId) ?? '#e6194b';
              return (
                <mark
                  key={s.from}
                  className={s.objects.some((o) => o.objectId === selectedId) ? 'span selected' : 'span'}
                  style={{ background: `${color}33`, borderBottom: `2px solid ${color}` }}
                  title={s.objects.map((o) => titleOf(o.schemaId)).join(', ')}
                  onClick={() => !props.onPickChar && setSelectedId(top.objectId)}
                >
                  {piece}
                </mark>
              );
            })}
          </div>
        )}
      </div>
    </EditorShell>
  );
}

/** The text editor as the work page opens any medium's. */
export function TextSurfaceEditor({ asset, onPick, pins: _pins, ...props }: SurfaceEditorProps) {
  return (
    <TextEditor
      {...props}
      text={asset.text}
      textError={asset.textError}
      onPickChar={onPick ? (index) => onPick({ position: index }) : undefined}
    />
  );
}
