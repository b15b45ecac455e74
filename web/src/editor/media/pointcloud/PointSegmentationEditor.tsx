import { useEffect, useMemo, useRef, useState } from 'react';
import {
  decodePointLabels,
  encodePointLabels,
  labelledShare,
  readPointLabels,
} from '../../../../../src/shared/pointcloud/point-labels';
import type { Vec } from '../../core/answer';
import type { SurfaceEditorProps } from '../../core/surface';
import { POINT_LABEL_KEYS } from '../../shell/editor-keys';
import { EditorShell } from '../../shell/EditorShell';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { typingInField } from '../../shell/useEditorKeys';
import { useSpaceTools } from '../../shell/useSpaceTools';
import { CameraView } from './CameraView';
import { ExternalCheckNotice } from './ExternalCheckNotice';
import type { ColorMode } from './scene';
import { countClasses, labelInside } from './segmentation';
import { panTop, topToGround } from './top-view';
import { useSequence } from './useFrame';
import { useScene } from './useScene';
import { useSubmitGate } from './useSubmitGate';
import { FrameBar, HistoryAndColour, PointCloudViews, ViewMessage } from './Views';

/** A gesture under way: a lasso drawn in the top view (screen points), a pan, or an orbit. */
type Gesture = { type: 'lasso'; path: Vec[] } | { type: 'pan'; last: Vec } | { type: 'orbit'; last: Vec; pan: boolean };

const heightOf = (text: string) => (text.trim() === '' || !Number.isFinite(Number(text)) ? undefined : Number(text));

/**
 * The point cloud editor of a project in segmentation mode: each point of a frame gets a class
 * (one of the ontology's pct tools) with a lasso drawn in the top view, between two heights when
 * they are set; points are coloured by class. The answer keeps each frame's class per point as
 * `pointLabels` (a run-length code in file order).
 */
export default function PointSegmentationEditor(props: SurfaceEditorProps) {
  const { ontology, readOnly } = props;
  const history = useAnswerHistory(props.initial, props.onChange);
  const { frames, cameras, total, page, go, cloud, frameError } = useSequence(props.asset);
  const { answer, change } = history;
  const space = useSpaceTools(ontology, 'lidar');
  const classes = useMemo(() => space.tools.map((t) => t.schemaId), [space.tools]);
  const classColors = useMemo(
    () => space.tools.map((t) => space.colors.get(t.schemaId) ?? '#e6194b'),
    [space.tools, space.colors],
  );
  /** The class a lasso gives: an index into `classes` from 1, 0 to unlabel; undefined to pan. */
  const [brush, setBrush] = useState<number | undefined>(readOnly ? undefined : 1);
  const [mode, setMode] = useState<ColorMode>('class');
  const [low, setLow] = useState('');
  const [high, setHigh] = useState('');
  const [keep, setKeep] = useState(false);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [lasso, setLasso] = useState<Vec[]>([]);
  const [shownFrame, setShownFrame] = useState(-1);
  const view = useScene(cloud, setMessage);
  const { canvasRef, overlayRef, sceneRef, top, setTop, orbit, orbitBy, regionAt } = view;
  const gesture = useRef<Gesture | undefined>(undefined);
  const externalCheck = useSubmitGate(props, frames, page);

  const items = useMemo(() => readPointLabels(answer.extra?.pointLabels), [answer.extra]);
  const item = items.find((i) => i.page === page);
  // The frame's class per point, read from the answer (so undo and redo move it too).
  const decoded = useMemo(() => {
    if (!cloud) return undefined;
    if (!item) return { labels: new Uint8Array(cloud.count) };
    try {
      return { labels: decodePointLabels(item, cloud.count, classes) };
    } catch (e) {
      const why = e instanceof Error ? e.message : 'they cannot be read';
      return {
        labels: new Uint8Array(cloud.count),
        problem: `The labels saved for frame ${page + 1} are not shown: ${why}. A lasso on this frame replaces them.`,
      };
    }
  }, [cloud, item, classes, page]);
  const labels = decoded?.labels;
  const counts = useMemo(() => (labels ? countClasses(labels, classes.length) : []), [labels, classes.length]);

  useEffect(() => {
    sceneRef.current?.setCloud(cloud, mode, labels, classColors);
    if (cloud) setShownFrame(page);
  }, [cloud, mode, labels, classColors, page]);

  useEffect(() => {
    sceneRef.current?.render(top, orbit);
    const overlay = overlayRef.current;
    const ctx = overlay?.getContext('2d');
    if (!overlay || !ctx) return;
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    if (lasso.length < 2) return;
    ctx.strokeStyle = brush ? (classColors[brush - 1] ?? '#ffd400') : '#ffffff';
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    lasso.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
    ctx.closePath();
    ctx.stroke();
  });

  /** Gives the lasso's class to the points inside it (screen points of the top view). */
  const apply = (path: Vec[]) => {
    if (!cloud || !labels || brush === undefined || path.length < 3) return;
    const next = labels.slice();
    const rule = { low: heightOf(low), high: heightOf(high), keep };
    const changed = labelInside(
      cloud.positions,
      next,
      path.map((p) => topToGround(top, p)),
      brush,
      rule,
    );
    if (changed === 0) {
      setMessage('No point changed: the lasso holds no point between the heights set that it may label.');
      return;
    }
    setMessage(undefined);
    const encoded = encodePointLabels(page, next, classes);
    const others = items.filter((i) => i.page !== page);
    const pointLabels = (encoded.classes.length ? [...others, encoded] : others).sort((a, b) => a.page - b.page);
    const { pointLabels: _was, ...extra } = answer.extra ?? {};
    change({ ...answer, extra: pointLabels.length ? { ...extra, pointLabels } : extra });
  };

  const onPointerDown = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const hit = regionAt(e);
    if (!hit) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    if (hit.name === 'perspective')
      gesture.current = { type: 'orbit', last: hit.at, pan: e.shiftKey || e.button === 2 };
    else if (brush !== undefined && !readOnly && e.button === 0) {
      gesture.current = { type: 'lasso', path: [hit.at] };
      setLasso([hit.at]);
    } else gesture.current = { type: 'pan', last: hit.at };
  };

  const onPointerMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const g = gesture.current;
    const canvas = canvasRef.current;
    if (!g || !canvas) return;
    const r = canvas.getBoundingClientRect();
    const at: Vec = [e.clientX - r.left, e.clientY - r.top];
    if (g.type === 'lasso') {
      const last = g.path[g.path.length - 1] as Vec;
      if (Math.hypot(at[0] - last[0], at[1] - last[1]) < 2) return;
      g.path.push(at);
      setLasso([...g.path]);
    } else if (g.type === 'pan') {
      setTop((v) => panTop(v, at[0] - g.last[0], at[1] - g.last[1]));
      g.last = at;
    } else {
      orbitBy(at[0] - g.last[0], at[1] - g.last[1], g.pan);
      g.last = at;
    }
  };

  const onPointerUp = () => {
    const g = gesture.current;
    gesture.current = undefined;
    if (g?.type !== 'lasso') return;
    setLasso([]);
    apply(g.path);
  };

  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.metaKey) return;
      let handled = true;
      const step = e.shiftKey ? 10 : 1;
      const key = e.key.toLowerCase();
      if (e.ctrlKey) {
        if (key === 'z') history.travel(e.shiftKey ? 'redo' : 'undo');
        else if (key === 'y') history.travel('redo');
        else handled = false;
      } else if (e.altKey) handled = false;
      else if (e.key === 'ArrowRight' || e.key === '.' || e.key === '>') go(page + step);
      else if (e.key === 'ArrowLeft' || e.key === ',' || e.key === '<') go(page - step);
      else if (e.key === 'Escape' || key === 'v') {
        gesture.current = undefined;
        setLasso([]);
        setBrush(undefined);
      } else {
        const index = classes.indexOf(space.shortcuts.get(key) ?? '');
        if (index >= 0 && !readOnly) setBrush(index + 1);
        else if (key === 'e' && !readOnly) setBrush(0);
        else handled = false;
      }
      if (handled) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('keydown', handler, true);
    return () => window.removeEventListener('keydown', handler, true);
  });

  const share = item ? labelledShare(item) : undefined;
  const labelled = share?.labelled ?? 0;
  const count = cloud?.count ?? share?.total ?? 0;
  const shown = { frame: shownFrame, ready: shownFrame === page && !!cloud, points: cloud?.count ?? 0 };
  const toolbar = (
    <>
      <button
        type="button"
        aria-pressed={brush === undefined}
        onClick={() => setBrush(undefined)}
        aria-keyshortcuts="V"
      >
        Pan
      </button>
      {space.tools.map((t, i) => (
        <ToolButton
          key={t.schemaId}
          {...space.buttonOf(t)}
          label={`Label points as ${t.title}`}
          title={`Lasso: label points as ${t.title}`}
          pressed={brush === i + 1}
          disabled={readOnly}
          onClick={() => setBrush(i + 1)}
        />
      ))}
      <button
        type="button"
        aria-pressed={brush === 0}
        disabled={readOnly}
        onClick={() => setBrush(0)}
        aria-keyshortcuts="E"
        title="Lasso: take the class off points"
      >
        Unlabel
      </button>
      <label>
        Lowest height (m){' '}
        <input type="number" step={0.1} size={5} value={low} onChange={(e) => setLow(e.target.value)} />
      </label>
      <label>
        Highest height (m){' '}
        <input type="number" step={0.1} size={5} value={high} onChange={(e) => setHigh(e.target.value)} />
      </label>
      <label>
        <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> Keep labelled points
      </label>
      <HistoryAndColour history={history} mode={mode} setMode={setMode} intensity={!!cloud?.intensity} />
    </>
  );

  return (
    <EditorShell
      className="editor pointcloud-editor"
      toolbarLabel="Point labelling tools"
      toolbar={toolbar}
      help={{
        tools: space.tools.flatMap((t) => {
          const key = space.keyOf(t.schemaId);
          return key ? [{ key, title: `label points as ${t.title}` }] : [];
        }),
        keys: POINT_LABEL_KEYS,
      }}
      given={{ ontology, problems: props.problems, readOnly, aside: props.aside, actions: props.actions }}
      editing={{
        answer,
        colors: space.colors,
        selectedId: undefined,
        onSelect: () => undefined,
        onChange: change,
        emptyNote: 'This project labels points, not objects: lasso points in the top view to give them a class.',
      }}
    >
      <div className="pointcloud-main">
        <ViewMessage message={decoded?.problem ?? message} frameError={frameError} />
        <ExternalCheckNotice check={externalCheck} go={go} />
        <PointCloudViews
          scene={view}
          label="Point cloud: top view (draw a lasso here) and 3D view"
          shown={shown}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
        />
        <section className="pointcloud-classes" aria-label="Points by class">
          <output aria-label="Labelled points" data-labelled={labelled} data-total={count}>
            {count
              ? `Frame ${page + 1}: ${labelled.toLocaleString('en')} of ${count.toLocaleString('en')} points labelled (${((100 * labelled) / count).toFixed(1)}%)`
              : ''}
          </output>
          <ul>
            {space.tools.map((t, i) => (
              <li key={t.schemaId}>
                <span className="swatch" style={{ background: classColors[i] }} aria-hidden="true" />
                {t.title}: {(counts[i + 1] ?? 0).toLocaleString('en')} points
              </li>
            ))}
          </ul>
        </section>
        <FrameBar page={page} total={total} go={go} shown={shown} />
        {cameras.list.length > 0 && (
          <div className="pointcloud-cameras">
            {cameras.list.map((camera) => (
              <CameraView
                key={camera.calibration.name}
                camera={camera}
                page={page}
                objects={[]}
                colors={space.colors}
                selectedId={undefined}
                active={undefined}
                readOnly
                onAdd={() => undefined}
                onSelect={() => undefined}
              />
            ))}
          </div>
        )}
      </div>
    </EditorShell>
  );
}
