import { type ReactNode, useRef, useState } from 'react';
import { ImageCanvas, type ImageCanvasHandle } from './ImageCanvas';
import { addObject, deleteObject, updateGeometry } from '../../core/edit';
import type { Pin, SurfaceEditorProps } from '../../core/surface';
import type { Ontology } from '../../core/ontology';
import type { EditorAnswer, Geometry, Vec } from '../../core/answer';
import type { Problem } from '../../core/validate';
import { EditorShell } from '../../shell/EditorShell';
import { IMAGE_KEYS } from '../../shell/editor-keys';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { type KeyAction, useEditorKeys } from '../../shell/useEditorKeys';
import { useSpaceTools } from '../../shell/useSpaceTools';

export interface ImageEditorProps {
  ontology: Ontology;
  imageUrl: string | undefined;
  initial: EditorAnswer;
  /** Every change of the answer (drafts are saved from here). */
  onChange(answer: EditorAnswer): void;
  /** Problems to show on the form (after a refused submit). */
  problems: Problem[];
  readOnly?: boolean;
  /** Review: clicks raise an issue at a point or an object instead of drawing. */
  onPick?(position: Vec, objectId: string | undefined): void;
  pins?: Pin[];
  /** The stage's buttons (Submit, Skip, Accept, Reject...), drawn in the action bar. */
  actions?: ReactNode;
  /** Shown above the questions: the task's open issues, a consensus score... */
  aside?: ReactNode;
}

/** The image editor: tools, canvas, objects with their questions, and the task's questions. */
export function ImageEditor(props: ImageEditorProps) {
  const { ontology, readOnly, onChange } = props;
  const { answer, canUndo, canRedo, change, travel } = useAnswerHistory(props.initial, onChange);
  const [toolId, setToolId] = useState<string | undefined>(undefined);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [zoom, setZoom] = useState(1);
  const canvas = useRef<ImageCanvasHandle>(null);

  const { tools, colors, shortcuts, keyOf, buttonOf } = useSpaceTools(ontology, 'plane');
  const activeTool = tools.find((t) => t.schemaId === toolId);

  const onCreate = (geometry: Geometry) => {
    if (!activeTool) return;
    const added = addObject(answer, activeTool, geometry);
    change(added.answer);
    if (activeTool.classifications?.length) setSelectedId(added.objectId);
  };

  const onKey = (a: KeyAction) => {
    const c = canvas.current;
    switch (a.type) {
      case 'tool':
        if (!readOnly && !props.onPick) setToolId(a.schemaId);
        return;
      case 'select-mode':
        return setToolId(undefined);
      case 'escape':
        if (!c?.cancel()) {
          setToolId(undefined);
          setSelectedId(undefined);
        }
        return;
      case 'enter':
        return c?.finish();
      case 'delete':
        if (c?.undoVertex()) return;
        if (selectedId && !readOnly) {
          change(deleteObject(answer, selectedId));
          setSelectedId(undefined);
        }
        return;
      case 'undo':
      case 'redo':
        return readOnly ? undefined : travel(a.type);
      case 'zoom':
        return c?.zoom(a.factor);
      case 'fit':
        return c?.fit();
      case 'pan':
        return c?.pan(a.dx, a.dy);
    }
  };
  useEditorKeys(shortcuts, onKey);

  const toolbar = (
    <>
      <button
        type="button"
        aria-pressed={!toolId}
        onClick={() => setToolId(undefined)}
        aria-keyshortcuts="V"
        aria-label="Select tool"
      >
        Select <kbd>V</kbd>
      </button>
      {tools.map((t) => (
        <ToolButton
          key={t.schemaId}
          {...buttonOf(t)}
          label={`${t.title} tool`}
          title={`${t.title} (${t.tool})`}
          pressed={toolId === t.schemaId}
          disabled={readOnly || !!props.onPick}
          onClick={() => setToolId(toolId === t.schemaId ? undefined : t.schemaId)}
        />
      ))}
      <span className="toolbar-gap" />
      <button
        type="button"
        onClick={() => travel('undo')}
        disabled={readOnly || !canUndo}
        aria-keyshortcuts="Control+Z"
      >
        Undo
      </button>
      <button
        type="button"
        onClick={() => travel('redo')}
        disabled={readOnly || !canRedo}
        aria-keyshortcuts="Control+Shift+Z"
      >
        Redo
      </button>
      <button type="button" onClick={() => canvas.current?.zoom(0.8)} aria-label="Zoom out" aria-keyshortcuts="-">
        −
      </button>
      <output className="zoom-level" aria-label="Zoom level">
        {Math.round(zoom * 100)}%
      </output>
      <button type="button" onClick={() => canvas.current?.zoom(1.25)} aria-label="Zoom in" aria-keyshortcuts="+">
        +
      </button>
      <button type="button" onClick={() => canvas.current?.fit()} aria-keyshortcuts="F">
        Fit
      </button>
    </>
  );

  return (
    <EditorShell
      className="image-editor"
      toolbarLabel="Drawing tools"
      toolbar={toolbar}
      help={{
        tools: tools.map((t) => ({ key: keyOf(t.schemaId) ?? '', title: t.title })).filter((t) => t.key),
        keys: IMAGE_KEYS,
      }}
      given={props}
      editing={{ answer, colors, selectedId, onSelect: setSelectedId, onChange: change }}
    >
      <ImageCanvas
        ref={canvas}
        imageUrl={props.imageUrl}
        objects={answer.objects}
        colorOf={(id) => colors.get(id) ?? '#e6194b'}
        drawKind={activeTool?.tool as Geometry['kind'] | undefined}
        selectedId={selectedId}
        editable={!readOnly}
        onSelect={setSelectedId}
        onCreate={onCreate}
        onChange={(id, g) => change(updateGeometry(answer, id, g))}
        onPick={props.onPick}
        pins={props.pins}
        onViewportChange={(v) => setZoom(v.scale)}
      />
    </EditorShell>
  );
}

/** The image editor as the work page opens any medium's. */
export function ImageSurfaceEditor({ asset, onPick, ...props }: SurfaceEditorProps) {
  return (
    <ImageEditor
      {...props}
      imageUrl={asset.url}
      onPick={onPick ? (position, objectId) => onPick(objectId ? { objectId } : { position }) : undefined}
    />
  );
}
