import {
  type KeyboardEvent as ReactKeyboardEvent,
  type MouseEvent as ReactMouseEvent,
  type PointerEvent as ReactPointerEvent,
  useCallback,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Loading } from '../../../components/States';
import type { EditorAnswer, EditorObject, Geometry, Vec } from '../../core/answer';
import { toolsOfSpace } from '../../core/ontology';
import { answersOfPage, objectsOfPage, pageQuestionsNote, partQuestions, setAnswersOfPage } from '../../core/pages';
import { addObject, deleteObject } from '../../core/edit';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import type { PagePoint } from '../../core/tool';
import { documentTool } from '../../core/tools';
import { EditorShell } from '../../shell/EditorShell';
import { MediaUnreadable } from '../../shell/MediaUnreadable';
import { PDF_KEYS } from '../../shell/editor-keys';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { useEditorKeys } from '../../shell/useEditorKeys';
import { useSpaceTools } from '../../shell/useSpaceTools';
import { fromWords, type PageRect, type PdfGeometry } from '../../tools/pdf';
import { pageAt, pageTops, PAGE_GAP, visiblePages } from './pages';
import { PdfDrawView } from './PdfDrawView';
import { PdfPageView } from './PdfPageView';
import { type OpenedPdf, usePdf } from './usePdf';
/** What a pointer or a click says of where it is. */
type PointerAt = Pick<ReactMouseEvent, 'clientX' | 'clientY' | 'currentTarget'>;

const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3];

/** The pdf geometry of an object, when it is a mark on a document. */
export function pdfOf(o: EditorObject): PdfGeometry | undefined {
  return o.geometry.kind === 'pdf' ? o.geometry.value : undefined;
}

/**
 * The words of a selection on one page, each as its rectangle in the page's units: the text
 * layer's words are the browser's, measured one range per word.
 */
function selectedWords(range: Range, textLayer: HTMLElement, pageBox: DOMRect, scale: number) {
  const words: { rect: PageRect; text: string }[] = [];
  const walker = document.createTreeWalker(textLayer, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    if (!range.intersectsNode(node)) continue;
    const from = node === range.startContainer ? range.startOffset : 0;
    const to = node === range.endContainer ? range.endOffset : node.length;
    const piece = node.data.slice(from, to);
    for (const m of piece.matchAll(/\S+/g)) {
      const word = document.createRange();
      word.setStart(node, from + m.index);
      word.setEnd(node, from + m.index + m[0].length);
      const r = word.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      words.push({
        rect: [
          (r.left - pageBox.left) / scale,
          (r.top - pageBox.top) / scale,
          (r.right - pageBox.left) / scale,
          (r.bottom - pageBox.top) / scale,
        ],
        text: m[0],
      });
    }
  }
  return words;
}

/**
 * The picture of an area of a page as the page is shown (its canvas's pixels under the area),
 * as a PNG data URL; undefined while the page is not drawn.
 */
function areaPicture(pageEl: HTMLElement, [x1, y1, x2, y2]: PageRect, pageWidth: number): string | undefined {
  const picture = pageEl.querySelector<HTMLCanvasElement>('canvas.pdf-picture');
  if (!picture?.width || !pageWidth) return undefined;
  const k = picture.width / pageWidth;
  const out = document.createElement('canvas');
  out.width = Math.max(1, Math.round((x2 - x1) * k));
  out.height = Math.max(1, Math.round((y2 - y1) * k));
  out.getContext('2d')?.drawImage(picture, x1 * k, y1 * k, (x2 - x1) * k, (y2 - y1) * k, 0, 0, out.width, out.height);
  return out.toDataURL('image/png');
}

/**
 * PDF documents, in two views of one answer. The text: pages drawn by pdf.js with their text
 * layer, only those near the view (a 500-page file opens as a 5-page one does); select words
 * and choose a tool to mark them, or hold Alt and drag to mark an area. One page in the image
 * editor: boxes, polygons, lines and points on it, kept with `page` (counted from 0). Both keep
 * their marks in the page's own units (PDF points at 100 %, y down from the page's top). A
 * project with image tools but no `pdf` tool opens on the first page to draw on.
 */
export function PdfSurfaceEditor(props: SurfaceEditorProps) {
  const opened = usePdf(props.asset.url);
  const { ontology, onChange } = props;
  const drawing = useMemo(() => toolsOfSpace(ontology, 'plane').length > 0, [ontology]);
  const [view, setView] = useState<{ draw: boolean; page: number }>(() => ({
    draw: drawing && toolsOfSpace(ontology, 'document').length === 0,
    page: 0,
  }));
  // Each view keeps its own undo; the one opened starts from the answer the other left.
  const latest = useRef(props.initial);
  const changed = useCallback(
    (answer: EditorAnswer) => {
      latest.current = answer;
      onChange(answer);
    },
    [onChange],
  );
  const given = { ...props, initial: latest.current, onChange: changed };
  if (opened.status === 'error') {
    // The questions, the answer saved so far and the stage's buttons stay.
    return (
      <MediaUnreadable
        given={given}
        problem={`The PDF could not be opened: ${opened.message}.`}
        wholeAssetQuestionsOnly
      />
    );
  }
  const ready = opened.status === 'ready' ? opened.value : undefined;
  if (view.draw && ready) {
    return (
      <PdfDrawView
        given={given}
        opened={ready}
        page={view.page}
        onPage={(page) => setView({ draw: true, page })}
        onText={() => setView((v) => ({ ...v, draw: false }))}
      />
    );
  }
  return (
    <PdfTextView
      given={given}
      opened={ready}
      startPage={view.page}
      onDraw={drawing ? (page) => setView({ draw: true, page }) : undefined}
    />
  );
}

interface PdfTextViewProps {
  given: SurfaceEditorProps;
  opened: OpenedPdf | undefined;
  /** The page (0-based) scrolled to at the open. */
  startPage: number;
  /** Opens a page (0-based) in the image editor, when the project has image tools. */
  onDraw: ((page: number) => void) | undefined;
}

/** The document's text: its pages in a column, words to select and areas to drag. */
function PdfTextView({ given: props, opened, startPage, onDraw }: PdfTextViewProps) {
  const { ontology, readOnly, onPick } = props;
  const { answer, change, travel } = useAnswerHistory(props.initial, props.onChange);
  const { tools, colors, shortcuts, keyOf, buttonOf } = useSpaceTools(ontology, 'document');
  // Objects of image tools are drawn on their page too, in their tools' colours.
  const plane = useSpaceTools(ontology, 'plane');
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [active, setActive] = useState<string | undefined>(tools[0]?.schemaId);
  const [hint, setHint] = useState<string | undefined>();
  const pdf = opened?.pdf;
  const loader = opened?.loader;
  const [sizes, setSizes] = useState<Vec[]>(() =>
    opened ? Array.from({ length: opened.pdf.numPages }, () => opened.first) : [],
  );
  const [zoom, setZoom] = useState(1);
  const [fit, setFit] = useState<number | undefined>();
  const [scroll, setScroll] = useState({ top: 0, height: 800 });
  const [pageInput, setPageInput] = useState<string | undefined>();
  const [drawing, setDrawing] = useState<{ page: number; from: Vec; to: Vec } | undefined>();
  const box = useRef<HTMLDivElement>(null);
  const scale = (fit ?? 1) * zoom;

  // Every page is first taken to be the first page's size, until it is drawn; 100 % fits its width.
  useLayoutEffect(() => {
    if (!opened) return;
    setSizes(Array.from({ length: opened.pdf.numPages }, () => opened.first));
    const width = box.current?.clientWidth ?? 900;
    setFit(Math.max(0.25, Math.min(2, (width - 48) / opened.first[0])));
  }, [opened]);

  const tops = useMemo(() => pageTops(sizes, scale), [sizes, scale]);
  const total = tops.length ? (tops[tops.length - 1] as number) + (sizes.at(-1)?.[1] ?? 0) * scale + PAGE_GAP : 0;
  const width = Math.max(0, ...sizes.map((s) => s[0] * scale));
  const shown = visiblePages(tops, scroll.top, scroll.height);
  const current = pageAt(tops, scroll.top + scroll.height / 3);

  const onScroll = () => {
    const el = box.current;
    if (el) setScroll({ top: el.scrollTop, height: el.clientHeight });
  };
  const goTo = (page: number) => {
    const el = box.current;
    const top = tops[Math.max(0, Math.min(page, tops.length - 1))];
    if (el && top !== undefined) el.scrollTop = top;
    onScroll();
  };
  // Once the pages are laid out: at the page the editor was on (back from drawing on it).
  const arrived = useRef(false);
  useLayoutEffect(() => {
    if (arrived.current || fit === undefined || !tops.length) return;
    arrived.current = true;
    if (startPage > 0) goTo(startPage);
    else onScroll();
  }, [fit, tops]);

  const sized = useCallback((index: number, size: Vec) => {
    setSizes((list) => {
      const was = list[index];
      if (!was || (Math.abs(was[0] - size[0]) < 0.01 && Math.abs(was[1] - size[1]) < 0.01)) return list;
      const next = list.slice();
      next[index] = size;
      return next;
    });
  }, []);

  const add = (schemaId: string, value: PdfGeometry) => {
    const tool = tools.find((t) => t.schemaId === schemaId);
    if (!tool) return;
    const added = addObject(answer, tool, { kind: 'pdf', value } as Geometry);
    change(added.answer);
    setSelectedId(added.objectId);
  };

  /** The selected words become a mark of the tool; with no selection, the tool is the one Alt-drag uses. */
  const mark = (schemaId: string) => {
    if (readOnly) return;
    const selection = window.getSelection();
    const range = selection && selection.rangeCount > 0 ? selection.getRangeAt(0) : undefined;
    const pageEl =
      range && !range.collapsed
        ? (range.startContainer.parentElement?.closest('.pdf-page') as HTMLElement | null)
        : null;
    if (!range || !pageEl) {
      setActive(schemaId);
      const title = tools.find((t) => t.schemaId === schemaId)?.title ?? schemaId;
      setHint(`Select words, or hold Alt and drag on a page, to mark them as ${title}.`);
      return;
    }
    const page = Number(pageEl.dataset.page);
    const layer = pageEl.querySelector<HTMLElement>('.textLayer');
    const words = layer ? selectedWords(range, layer, pageEl.getBoundingClientRect(), scale) : [];
    if (!words.length) {
      setHint('Select words on a page first.');
      return;
    }
    const crosses = range.endContainer.parentElement?.closest('.pdf-page') !== pageEl;
    add(
      schemaId,
      fromWords(
        page,
        sizes[page] ?? [0, 0],
        words.map((w) => w.rect),
        words.map((w) => w.text).join(' '),
      ),
    );
    selection?.removeAllRanges();
    setActive(schemaId);
    setHint(crosses ? `Only the words of page ${page + 1} were marked: a mark stays on one page.` : undefined);
  };

  useEditorKeys(shortcuts, (a) => {
    if (a.type === 'tool') mark(a.schemaId);
    else if (a.type === 'undo' || a.type === 'redo') {
      if (!readOnly) travel(a.type);
    } else if (a.type === 'delete' && selectedId && !readOnly) {
      change(deleteObject(answer, selectedId));
      setSelectedId(undefined);
    } else if (a.type === 'escape') {
      setSelectedId(undefined);
      setDrawing(undefined);
    }
  });

  const pointOn = (e: PointerAt, page: number): PagePoint => {
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    return [page, (e.clientX - r.left) / scale, (e.clientY - r.top) / scale];
  };
  const hitAt = (at: PagePoint): EditorObject | undefined => {
    const tool = documentTool('pdf');
    let best: { o: EditorObject; measure: number } | undefined;
    for (const o of answer.objects) {
      const value = pdfOf(o);
      const hit = value && tool?.hit(value as never, at, 2 / scale);
      if (hit && (!best || hit.measure <= best.measure)) best = { o, measure: hit.measure };
    }
    return best?.o;
  };

  const pointerDown = (e: ReactPointerEvent, page: number) => {
    if (!e.altKey || e.button !== 0 || readOnly || onPick) return;
    if (!active) {
      setHint('This project has no PDF tool to mark an area with.');
      return;
    }
    e.preventDefault();
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    const [, x, y] = pointOn(e, page);
    setDrawing({ page, from: [x, y], to: [x, y] });
  };
  const pointerMove = (e: ReactPointerEvent, page: number) => {
    if (!drawing || drawing.page !== page) return;
    const [, x, y] = pointOn(e, page);
    setDrawing({ ...drawing, to: [x, y] });
  };
  const pointerUp = (e: ReactPointerEvent, page: number) => {
    if (!drawing || drawing.page !== page || !active) return;
    const tool = documentTool('pdf');
    const view = { scale, pageSize: sizes[page] ?? ([0, 0] as Vec) };
    const started = tool?.press(null, [page, ...drawing.from], view).drawing;
    const made = started ? tool?.release(started, pointOn(e, page), view).done : undefined;
    setDrawing(undefined);
    if (!made || tool?.degenerate(made, 4 / scale)) return;
    const area = made as PdfGeometry;
    // The area's picture only when its tool asks for it: a data URL weighs on every answer.
    const image = tools.find((t) => t.schemaId === active)?.areaImage
      ? areaPicture(e.currentTarget as HTMLElement, area.bounds, area.pageSize[0])
      : undefined;
    add(active, image ? { ...area, image } : area);
  };
  const click = (e: ReactMouseEvent, page: number) => {
    if (e.altKey || drawing) return;
    if (!window.getSelection()?.isCollapsed) return;
    const at = pointOn(e, page);
    const hit = hitAt(at);
    if (onPick) onPick(hit ? { objectId: hit.objectId } : { position: [at[1], at[2]], page });
    else setSelectedId(hit?.objectId);
  };

  const pageKeys = (e: ReactKeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    const n = Number(pageInput);
    if (Number.isInteger(n) && n >= 1 && n <= sizes.length) goTo(n - 1);
    setPageInput(undefined);
  };
  const zoomBy = (step: number) => {
    const at = ZOOMS.findIndex((z) => z >= zoom - 1e-9);
    setZoom(ZOOMS[Math.max(0, Math.min(ZOOMS.length - 1, (at === -1 ? ZOOMS.length - 1 : at) + step))] as number);
  };

  const toolbar = (
    <>
      {tools.length === 0 && <span className="muted">This project has no PDF tools.</span>}
      {tools.map((t) => (
        <ToolButton
          key={t.schemaId}
          {...buttonOf(t)}
          label={`Mark as ${t.title}`}
          pressed={active === t.schemaId}
          disabled={readOnly}
          keepSelection
          onClick={() => mark(t.schemaId)}
        />
      ))}
      <span className="toolbar-group" role="group" aria-label="Pages">
        <label htmlFor="pdf-page">Page</label>
        <input
          id="pdf-page"
          type="number"
          min={1}
          max={Math.max(1, sizes.length)}
          value={pageInput ?? String(current + 1)}
          onChange={(e) => setPageInput(e.target.value)}
          onKeyDown={pageKeys}
          onBlur={() => setPageInput(undefined)}
          disabled={!pdf}
        />
        <span className="muted">of {sizes.length || '…'}</span>
      </span>
      {onDraw && (
        <button type="button" onClick={() => onDraw(current)} disabled={!pdf}>
          Draw on this page
        </button>
      )}
      <span className="toolbar-group" role="group" aria-label="Zoom">
        <button type="button" onClick={() => zoomBy(-1)} disabled={!pdf}>
          Zoom out
        </button>
        <span aria-live="polite">{Math.round(zoom * 100)} %</span>
        <button type="button" onClick={() => zoomBy(1)} disabled={!pdf}>
          Zoom in
        </button>
      </span>
      {hint && (
        <span className="hint" role="status">
          {hint}
        </span>
      )}
    </>
  );

  // Per-page questions are answered for the page in view (the one the Page input shows).
  const pageQuestions = useMemo(() => partQuestions(ontology), [ontology]);
  const asShown = useMemo(
    () => ({ ...answer, classifications: answersOfPage(answer.classifications, current, pageQuestions) }),
    [answer, current, pageQuestions],
  );
  const planeObjects = useMemo(
    () => answer.objects.filter((o) => plane.colors.has(o.schemaId)),
    [answer.objects, plane.colors],
  );
  const marksOn = (page: number) =>
    answer.objects.flatMap((o) => {
      const value = pdfOf(o);
      return value && value.page === page ? [{ o, value }] : [];
    });

  return (
    <EditorShell
      className="image-editor pdf-editor"
      toolbarLabel="PDF tools"
      toolbar={toolbar}
      help={{
        tools: tools.map((t) => ({ key: keyOf(t.schemaId) ?? '', title: t.title })).filter((t) => t.key),
        keys: PDF_KEYS,
      }}
      given={props}
      editing={{
        answer: asShown,
        colors,
        selectedId,
        onSelect: setSelectedId,
        onChange: (next) =>
          change({
            ...next,
            classifications: setAnswersOfPage(answer.classifications, next.classifications, current, pageQuestions),
          }),
        questionsNote: pageQuestionsNote(ontology, current),
      }}
    >
      <div className="pdf-canvas" ref={box} onScroll={onScroll} role="document" aria-label="PDF pages">
        {!pdf || !loader || fit === undefined ? (
          <div className="pdf-opening">
            <Loading what="the PDF" />
          </div>
        ) : (
          <div className="pdf-stack" style={{ height: total, width }}>
            {shown.map((index) => (
              <PdfPageView
                key={index}
                pdf={pdf}
                loader={loader}
                index={index}
                size={sizes[index] as Vec}
                scale={scale}
                top={tops[index] as number}
                marks={marksOn(index)}
                shapes={objectsOfPage(planeObjects, index)}
                shapeColors={plane.colors}
                pins={pinsOnPage(props.pins, index) ?? []}
                colors={colors}
                selectedId={selectedId}
                drawing={drawing?.page === index ? drawing : undefined}
                picking={!!onPick}
                onSize={sized}
                onPointerDown={pointerDown}
                onPointerMove={pointerMove}
                onPointerUp={pointerUp}
                onClick={click}
              />
            ))}
          </div>
        )}
      </div>
    </EditorShell>
  );
}
