import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { type FrameSource, ImageCanvas, type ImageCanvasHandle, type Modifiers } from './ImageCanvas';
import { merge, subtract, zonesOfMask, type Segmentation } from '../../tools/segmentation/zones';
import { imagePixels, wandMask } from '../../tools/segmentation/wand';
import { SegmentationModes, type SegmentationMode } from '../../tools/segmentation/SegmentationModes';
import { AssistControls, drawCandidate, useAssist } from '../../tools/segmentation/assist';
import { type OverlapRule, settleAnswer } from '../../tools/segmentation/overlap';
import { answersAt, mergeShown, objectsOnPage, setKeyframe } from '../../core/tracks';
import { answersOfPage, mergePage, objectsOfPage, pageQuestionsNote, partQuestions } from '../../core/pages';
import type { KeyRow } from '../../shell/editor-keys';
import { addObject, deleteObject, updateGeometry } from '../../core/edit';
import type { AssistClient, Pin } from '../../core/surface';
import type { Ontology } from '../../core/ontology';
import type { EditorAnswer, Geometry, Vec } from '../../core/answer';
import type { Problem } from '../../core/validate';
import { EditorShell } from '../../shell/EditorShell';
import { IMAGE_KEYS } from '../../shell/editor-keys';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { type KeyAction, useEditorKeys } from '../../shell/useEditorKeys';
import { useSpaceTools } from '../../shell/useSpaceTools';
import { toolColor } from '../../core/ontology';
import { BrushLayer } from '../../tools/brush/layer';
import { useBrushLayer } from '../../tools/brush/useBrushLayer';
import { BrushControls, BRUSH_SIZES, nextBrushSize } from '../../tools/brush/BrushControls';

export interface ImageEditorProps {
  ontology: Ontology;
  imageUrl: string | undefined;
  initial: EditorAnswer;
  /** Every change of the answer (drafts are saved from here). */
  onChange(answer: EditorAnswer): void;
  /** Problems to show on the form (after a refused submit). */
  problems: Problem[];
  readOnly?: boolean;
  /**
   * Review: clicks raise an issue at a point or an object instead of drawing. `onMask` says the
   * object is a mask (a segmentation object): its issue keeps the clicked point, which lies on it.
   */
  onPick?(position: Vec, objectId: string | undefined, onMask?: boolean): void;
  pins?: Pin[];
  /** The stage's buttons (Submit, Skip, Accept, Reject...), drawn in the action bar. */
  actions?: ReactNode;
  /** Shown above the questions: the task's open issues, a consensus score... */
  aside?: ReactNode;
  /** The task's brush layer as stored (a PNG of the image's size), drawn into the layer at the open. */
  brushUrl?: string | null | undefined;
  /** The brush layer changed (a stroke, a fill, an undo): drafts and the submit save it. */
  onBrushChange?(layer: BrushLayer): void;
  /**
   * A brush layer the medium owns (a volume's slice, filled from its voxels) instead of one the
   * editor makes and loads from `brushUrl`.
   */
  brushLayer?: BrushLayer | undefined;
  /** The organization's Assist plugin: segmentation and brush tools offer Assist. */
  assist?: AssistClient | undefined;
  /** The project's rule for segmentation objects (and brush classes) that overlap. */
  segmentationOverlap?: OverlapRule | undefined;
  /**
   * A medium of many parts shown one part at a time (a video's frames): the part's picture, its
   * index, and the player drawn under it. Objects are tracks: drawn on a part they start there,
   * edited on another they get a keyframe there.
   */
  paged?: Paged | undefined;
}

export interface PagedEditing {
  answer: EditorAnswer;
  selectedId: string | undefined;
  change(next: EditorAnswer): void;
}

export interface Paged {
  page: number;
  /** The part's picture when the medium draws it (a video's frame); else the editor loads `imageUrl`. */
  frame?: FrameSource | undefined;
  /**
   * Objects live on the one part they were drawn on (a document's pages), instead of being
   * tracks that go on from the part they start on (a video's frames).
   */
  separate?: boolean;
  /** The part's pixels drawn as squares once zoomed past 1:1 (a volume's slice), not smoothed. */
  pixelated?: boolean;
  /** What the objects' list says when the part shows none (a view objects are not drawn on). */
  emptyNote?: string | undefined;
  keys: readonly KeyRow[];
  player(editing: PagedEditing): ReactNode;
}

/** The image editor: tools, canvas, objects with their questions, and the task's questions. */
export function ImageEditor(props: ImageEditorProps) {
  const { ontology, readOnly, onChange } = props;
  const { answer, canUndo, canRedo, change, travel } = useAnswerHistory(props.initial, onChange);
  const paged = props.paged;
  const page = paged?.page;
  const separate = paged?.separate === true;
  // On a medium of many parts the canvas and the panel show the tracks as they are on this part
  // (or, for separate pages, the objects drawn on it).
  // Frame-specific questions answer per part: a video's from the frame shown on, a document's
  // for the page shown only.
  const frameQuestions = useMemo(
    () => (page === undefined ? new Set<string>() : partQuestions(ontology)),
    [ontology, page === undefined],
  );
  const shown = useMemo(
    () =>
      page === undefined
        ? answer
        : {
            ...answer,
            objects: (separate ? objectsOfPage : objectsOnPage)(answer.objects, page),
            classifications: (separate ? answersOfPage : answersAt)(answer.classifications, page, frameQuestions),
          },
    [answer, page, separate, frameQuestions],
  );
  const [toolId, setToolId] = useState<string | undefined>(undefined);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [zoom, setZoom] = useState(1);
  const canvas = useRef<ImageCanvasHandle>(null);
  const [imageSize, setImageSize] = useState<{ width: number; height: number } | null>(null);
  const [brushSize, setBrushSize] = useState<number>(BRUSH_SIZES.initial);
  const [eraser, setEraser] = useState(false);
  const [bucket, setBucket] = useState(false);
  const [segMode, setSegMode] = useState<SegmentationMode>('polygon');
  const [tolerance, setTolerance] = useState(24);
  const [wandError, setWandError] = useState<string | undefined>(undefined);
  // The sketch a segmentation is painted on before it is traced into zones.
  const [sketch, setSketch] = useState<BrushLayer | undefined>(undefined);
  // The layer is a canvas, outside React: this counts its changes so its undo buttons follow.
  const [, setBrushVersion] = useState(0);
  // Assist: on a brush class a toggle, on a segmentation a mode; a box is dragged while Box is on.
  const [brushAssist, setBrushAssist] = useState(false);
  const [assistBoxing, setAssistBoxing] = useState(false);
  const [assistOverlay, setAssistOverlay] = useState<BrushLayer | undefined>(undefined);
  const assistState = useAssist(props.assist, imageSize);

  const { tools, colors, shortcuts, keyOf, buttonOf } = useSpaceTools(ontology, 'plane');
  // Brush classes paint the task's one raster layer; they are tools of the toolbar, not objects.
  const brushTools = (ontology.tools ?? []).filter((t) => t.tool === 'brush');
  const activeTool = tools.find((t) => t.schemaId === toolId);
  const activeBrush = brushTools.find((t) => t.schemaId === toolId);
  const brushColor = (schemaId: string) =>
    toolColor(
      brushTools.find((t) => t.schemaId === schemaId)!,
      (ontology.tools ?? []).findIndex((t) => t.schemaId === schemaId),
    );

  const keys = useMemo(() => {
    const all = new Map(shortcuts);
    for (const t of brushTools) if (t.shortcutKey) all.set(t.shortcutKey.toLowerCase(), t.schemaId);
    return all;
  }, [shortcuts, ontology]);

  const hasBrush = brushTools.length > 0 || !!props.brushUrl;
  // A layer handed in (a volume's slice, painted by the voxel brush) is drawn on; otherwise the
  // task's own brush layer.
  const ownBrushLayer = useBrushLayer(hasBrush && !props.brushLayer, imageSize, props.brushUrl, () =>
    setBrushVersion((v) => v + 1),
  );
  const brushLayer = props.brushLayer ?? ownBrushLayer;

  // Overlaps are settled as objects are drawn on an image or a separate page; a video's tracks are
  // settled by the server when the answer is saved.
  const overlap = page === undefined || separate ? props.segmentationOverlap : undefined;
  const settle = (next: EditorAnswer, objectId: string) => settleAnswer(next, objectId, overlap);
  useEffect(() => {
    if (brushLayer) brushLayer.keepOthers = props.segmentationOverlap === 'earlier-wins';
  }, [brushLayer, props.segmentationOverlap]);

  const brushChanged = () => {
    setBrushVersion((v) => v + 1);
    if (brushLayer) props.onBrushChange?.(brushLayer);
  };
  const brushTravel = (way: 'undo' | 'redo') => {
    if (brushLayer?.[way]()) {
      canvas.current?.repaint();
      brushChanged();
    }
  };

  const setImageSizeOnce = (next: { width: number; height: number }) =>
    setImageSize((was) => (was && was.width === next.width && was.height === next.height ? was : next));

  useEffect(() => {
    if (!imageSize) return;
    setSketch(new BrushLayer(imageSize.width, imageSize.height));
    if (props.assist) setAssistOverlay(new BrushLayer(imageSize.width, imageSize.height));
  }, [imageSize, !!props.assist]);

  const segmenting = activeTool?.tool === 'segmentation';
  const assistTool = !readOnly && props.assist ? (segmenting ? activeTool : activeBrush) : undefined;
  const assisting = !!assistTool && (segmenting ? segMode === 'assist' : brushAssist);
  const assistColor = assistTool ? (colors.get(assistTool.schemaId) ?? brushColor(assistTool.schemaId)) : '#e6194b';
  useEffect(() => {
    assistState.reset();
    setAssistBoxing(false);
    // A selected object takes the clicks meant for the image.
    if (assisting) setSelectedId(undefined);
  }, [toolId, assisting]);
  useEffect(() => {
    if (!assistOverlay) return;
    drawCandidate(
      assistOverlay.canvas,
      assisting ? assistState : { candidate: null, points: { positive: [], negative: [] } },
      assistColor,
    );
    canvas.current?.repaint();
  }, [assistOverlay, assistState.candidate, assistState.points, assisting, assistColor]);
  /** The candidate becomes a segmentation object, or is painted into the brush layer in the class's colour. */
  const acceptAssist = () => {
    const made = assistState.candidate;
    if (!made || !assistTool || assistState.busy) return;
    if (segmenting) {
      addZones(made.value, { alt: false, shift: false });
      // The next object is clicked over the image, not over this one.
      setSelectedId(undefined);
    } else if (brushLayer && brushLayer.paintMask(made.mask, brushColor(assistTool.schemaId))) {
      canvas.current?.repaint();
      brushChanged();
    }
    assistState.reset();
  };
  /** Zones made by painting or the wand: a new object, or (Alt, Shift) cut from or added to the selected one. */
  const addZones = (value: Segmentation, modifiers: Modifiers) => {
    if (value.zones.length) onCreate({ kind: 'segmentation', value }, modifiers);
  };
  const traceSketch = (modifiers: Modifiers) => {
    if (!sketch) return;
    const { pixels, area } = sketch.mask();
    sketch.clear();
    canvas.current?.repaint();
    addZones(zonesOfMask(sketch.width, sketch.height, pixels, area), modifiers);
  };
  const wand = (at: Vec, modifiers: Modifiers) => {
    const url = props.imageUrl;
    if (!url) return;
    imagePixels(url).then(
      (img) => {
        setWandError(undefined);
        const mask = wandMask(img, at, tolerance);
        addZones(zonesOfMask(img.width, img.height, mask), modifiers);
      },
      () => setWandError("The magic wand cannot read this image's pixels (its server does not allow it)."),
    );
  };

  const onCreate = (geometry: Geometry, modifiers: Modifiers) => {
    if (assisting && assistTool && geometry.kind === 'bounding-box') {
      const { x, y, width, height } = geometry.value;
      void assistState.box([x, y, x + width, y + height], assistTool.schemaId);
      setAssistBoxing(false);
      return;
    }
    if (!activeTool) return;
    // Segmentation: Alt cuts the shape out of the selected object of the class (a hole, or a part
    // taken away), Shift adds it to it; zones of one object never overlap.
    const target = shown.objects.find((o) => o.objectId === selectedId && o.schemaId === activeTool.schemaId);
    if (geometry.kind === 'segmentation' && target?.geometry.kind === 'segmentation') {
      if (modifiers.alt || modifiers.shift) {
        const value = (modifiers.alt ? subtract : merge)(target.geometry.value, geometry.value);
        change(
          value.zones.length
            ? settle(updateGeometry(answer, target.objectId, { kind: 'segmentation', value }), target.objectId)
            : deleteObject(answer, target.objectId),
        );
        return;
      }
    }
    // On separate pages a tool of one object (`multiple: false`) has one per page: the page's is replaced.
    const added = addObject(separate ? shown : answer, activeTool, geometry);
    const placed = settle(
      page === undefined
        ? added.answer
        : {
            ...added.answer,
            objects: added.answer.objects.map((o) => (o.objectId === added.objectId ? { ...o, where: { page } } : o)),
          },
      added.objectId,
    );
    // Drawn wholly under objects that win over it: nothing is added.
    if (!placed.objects.some((o) => o.objectId === added.objectId)) return;
    change(separate ? mergePage(answer, shown, placed, page, frameQuestions) : placed);
    // A new segmentation stays selected: its holes are cut next.
    if (activeTool.classifications?.length || geometry.kind === 'segmentation') setSelectedId(added.objectId);
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
        if (assisting && !c?.cancel()) return assistState.reset();
        if (!c?.cancel()) {
          setToolId(undefined);
          setSelectedId(undefined);
        }
        return;
      case 'enter':
        return assisting ? acceptAssist() : c?.finish();
      case 'delete':
        if (c?.undoVertex()) return;
        if (selectedId && !readOnly) {
          change(deleteObject(answer, selectedId));
          setSelectedId(undefined);
        }
        return;
      case 'undo':
      case 'redo':
        if (readOnly) return;
        // With a brush class in hand, undo and redo are the layer's strokes.
        return activeBrush ? brushTravel(a.type) : travel(a.type);
      case 'brush-size':
        return (activeBrush || (segmenting && segMode === 'paint')) && setBrushSize((s) => nextBrushSize(s, a.by));
      case 'eraser':
        return activeBrush && setEraser((on) => !on);
      case 'zoom':
        return c?.zoom(a.factor);
      case 'fit':
        return c?.fit();
      case 'pan':
        return c?.pan(a.dx, a.dy);
    }
  };
  useEditorKeys(keys, onKey);

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
      {[...tools, ...brushTools].map((t) => (
        <ToolButton
          key={t.schemaId}
          {...buttonOf(t)}
          color={colors.get(t.schemaId) ?? brushColor(t.schemaId)}
          label={`${t.title} tool`}
          title={`${t.title} (${t.tool})`}
          pressed={toolId === t.schemaId}
          disabled={readOnly || !!props.onPick}
          onClick={() => setToolId(toolId === t.schemaId ? undefined : t.schemaId)}
        />
      ))}
      {segmenting && (
        <SegmentationModes
          mode={segMode}
          onMode={setSegMode}
          size={brushSize}
          onSize={setBrushSize}
          tolerance={tolerance}
          onTolerance={setTolerance}
          error={wandError}
          assist={!!assistTool}
        />
      )}
      {activeBrush && (
        <BrushControls
          size={brushSize}
          onSize={setBrushSize}
          eraser={eraser}
          onEraser={setEraser}
          bucket={bucket}
          onBucket={setBucket}
          assist={assistTool ? { on: brushAssist, onChange: setBrushAssist } : undefined}
        />
      )}
      {assisting && (
        <AssistControls state={assistState} boxing={assistBoxing} onBoxing={setAssistBoxing} onAccept={acceptAssist} />
      )}
      <span className="toolbar-gap" />
      <button
        type="button"
        onClick={() => (activeBrush ? brushTravel('undo') : travel('undo'))}
        disabled={readOnly || !(activeBrush ? brushLayer?.canUndo : canUndo)}
        aria-keyshortcuts="Control+Z"
      >
        Undo
      </button>
      <button
        type="button"
        onClick={() => (activeBrush ? brushTravel('redo') : travel('redo'))}
        disabled={readOnly || !(activeBrush ? brushLayer?.canRedo : canRedo)}
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
        keys: paged ? [...paged.keys, ...IMAGE_KEYS.filter((k) => k.keys !== 'arrow keys')] : IMAGE_KEYS,
      }}
      given={props}
      editing={{
        answer: shown,
        colors,
        selectedId,
        onSelect: setSelectedId,
        emptyNote: paged?.emptyNote,
        questionsNote: separate ? pageQuestionsNote(ontology, page ?? 0) : undefined,
        onChange:
          page === undefined
            ? change
            : separate
              ? (next) => change(mergePage(answer, shown, next, page, frameQuestions))
              : (next) => change(mergeShown(answer, shown, next, page, frameQuestions)),
      }}
    >
      <div className={paged ? 'paged-surface' : 'contents'}>
        <ImageCanvas
          ref={canvas}
          imageUrl={props.imageUrl}
          frame={paged?.frame}
          pixelated={paged?.pixelated}
          objects={shown.objects}
          colorOf={(id) => colors.get(id) ?? '#e6194b'}
          drawKind={
            assisting
              ? assistBoxing
                ? 'bounding-box'
                : undefined
              : segmenting && segMode !== 'polygon'
                ? undefined
                : (activeTool?.tool as Geometry['kind'] | undefined)
          }
          onPoint={
            assisting && !assistBoxing
              ? (at, m) => void assistState.click(at, m.alt, assistTool!.schemaId)
              : segmenting && segMode === 'wand'
                ? wand
                : undefined
          }
          selectedId={selectedId}
          editable={!readOnly}
          onSelect={setSelectedId}
          onCreate={onCreate}
          onChange={(id, g) =>
            change(
              page === undefined || separate
                ? settle(updateGeometry(answer, id, g), id)
                : { ...answer, objects: setKeyframe(answer.objects, id, page, (e) => ({ ...e, geometry: g })) },
            )
          }
          onPick={
            props.onPick &&
            ((at, id) =>
              props.onPick!(at, id, shown.objects.find((o) => o.objectId === id)?.geometry.kind === 'segmentation'))
          }
          pins={props.pins}
          onViewportChange={(v) => setZoom(v.scale)}
          onImageSize={setImageSizeOnce}
          // The sketch holds pixels only during a stroke of the Paint mode, so it is drawn only in
          // that mode: every layer drawn costs a scaled copy of an image-sized canvas each frame.
          layers={[
            brushLayer,
            segmenting && segMode === 'paint' ? sketch : undefined,
            assisting ? assistOverlay : undefined,
          ].filter((l): l is BrushLayer => !!l)}
          brush={
            assisting
              ? undefined
              : segmenting && segMode === 'paint' && sketch
                ? {
                    layer: sketch,
                    size: brushSize,
                    color: activeTool ? (colors.get(activeTool.schemaId) ?? '#e6194b') : '#e6194b',
                    bucket: false,
                    onStroke: traceSketch,
                  }
                : activeBrush && brushLayer
                  ? {
                      layer: brushLayer,
                      size: brushSize,
                      color: eraser ? null : brushColor(activeBrush.schemaId),
                      bucket,
                      onStroke: brushChanged,
                    }
                  : undefined
          }
        />
        {paged?.player({ answer, selectedId, change })}
      </div>
    </EditorShell>
  );
}
