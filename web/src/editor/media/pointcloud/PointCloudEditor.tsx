import { useEffect, useMemo, useRef, useState } from 'react';
import {
  fitCuboid,
  groundCorners,
  groundHeight,
  cuboidsOverlap,
  wrapAngle,
  type Cuboid,
} from '../../../../../src/shared/pointcloud/cuboid';
import type { EditorAnswer, EditorObject, Vec } from '../../core/answer';
import { newId } from '../../core/codec';
import type { OntologyTool } from '../../core/ontology';
import { pointInPolygon } from '../../core/plane';
import type { SurfaceEditorProps } from '../../core/surface';
import { keyframeStepFrom, mergeShown, objectsOnPage, setKeyframe, tracksOf } from '../../core/tracks';
import { POINTCLOUD_KEYS } from '../../shell/editor-keys';
import { EditorShell } from '../../shell/EditorShell';
import { ToolButton } from '../../shell/ToolButton';
import { useAnswerHistory } from '../../shell/useAnswerHistory';
import { typingInField } from '../../shell/useEditorKeys';
import { useSpaceTools } from '../../shell/useSpaceTools';
import { MARKING_TOOLS, onImage, type MarkingTool, type PctValue, type Point3 } from '../../tools/pct';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { objectNumbering } from '../../panels/ObjectsPanel';
import { Timeline } from '../video/Timeline';
import { CameraView, SAME_POINT_PX } from './CameraView';
import { ExternalCheckNotice } from './ExternalCheckNotice';
import type { ColorMode } from './scene';
import { panTop, topToGround, topToScreen } from './top-view';
import { useSequence } from './useFrame';
import { useScene } from './useScene';
import { useSubmitGate } from './useSubmitGate';
import { FrameBar, HistoryAndColour, PointCloudViews, ViewMessage } from './Views';

/** The ontology's pct tool with the marking tools it allows. */
type PctTool = OntologyTool & {
  markingTools?: string[];
  presetCuboidDimensions?: boolean;
  cuboidLength?: number | null;
  cuboidWidth?: number | null;
  cuboidHeight?: number | null;
  hasInstance?: boolean;
};

/** The tool chosen: an ontology tool and one of its marking tools; none for Select. */
type Active = { schemaId: string; marking: MarkingTool } | undefined;

const MARKING_NAMES: Record<MarkingTool, string> = {
  cuboid: 'cuboid',
  polygon: '3D polygon',
  polyline: '3D polyline',
  rectangle: 'rectangle',
  polygon2d: '2D polygon',
  polyline2d: '2D polyline',
};

/** A gesture in the top view under way. */
type Gesture =
  | { type: 'pan'; last: Vec }
  | { type: 'orbit'; last: Vec; pan: boolean }
  | { type: 'move'; id: string; from: Vec; start: Cuboid; moved: boolean }
  | { type: 'turn'; id: string; start: Cuboid }
  | { type: 'place'; at: Vec; moved: boolean };

const allowed = (t: PctTool): MarkingTool[] =>
  (t.markingTools?.length ? t.markingTools : ['cuboid']).filter((m): m is MarkingTool =>
    MARKING_TOOLS.includes(m as MarkingTool),
  );

/** Whether a cuboid overlaps another object's cuboid on the frame; answers the other's title. */
function overlapping(
  cuboid: Cuboid,
  shown: readonly EditorObject[],
  except: string | undefined,
  titles: Map<string, string>,
): string | undefined {
  for (const o of shown) {
    const v = o.geometry.kind === 'pct' ? o.geometry.value : undefined;
    if (o.objectId === except || !v?.cuboid) continue;
    if (cuboidsOverlap(cuboid, v.cuboid)) return titles.get(o.schemaId) ?? o.schemaId;
  }
  return undefined;
}

/**
 * The 3D editor of a point-cloud task: the frame's points in a top view (where cuboids are
 * placed, moved and turned and 3D lines drawn), a perspective view to orbit, the side and front
 * views of the selected cuboid, the cameras' images with every object projected on them, and
 * the frames stepped like a video's, with tracks, keyframes and interpolation.
 */
export default function PointCloudEditor(props: SurfaceEditorProps) {
  const { ontology, readOnly, pctConfig } = props;
  const history = useAnswerHistory(props.initial, props.onChange);
  const { frames, cameras, total, page, go, cloud, frameError } = useSequence(props.asset);
  const { answer } = history;
  const space = useSpaceTools(ontology, 'lidar');
  const tools = space.tools as PctTool[];
  const titles = useMemo(() => new Map(tools.map((t) => [t.schemaId, t.title])), [tools]);
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const [active, setActive] = useState<Active>(undefined);
  const [mode, setMode] = useState<ColorMode>('height');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [drawing, setDrawing] = useState<Point3[]>([]);
  /** A 2D line being drawn on a camera's image. */
  const [drawing2d, setDrawing2d] = useState<{ sensor: string; points: [number, number][] } | undefined>(undefined);
  const [shownFrame, setShownFrame] = useState(-1);
  const view = useScene(cloud, setMessage);
  const { canvasRef, overlayRef, sceneRef, top, setTop, orbit, orbitBy, regionAt } = view;
  const gesture = useRef<Gesture | undefined>(undefined);
  const externalCheck = useSubmitGate(props, frames, page);
  const noOverlap = pctConfig?.allowOverlapping !== true;

  const shown = useMemo(() => objectsOnPage(answer.objects, page), [answer.objects, page]);
  const shownAnswer: EditorAnswer = useMemo(() => ({ ...answer, objects: shown }), [answer, shown]);
  const selected = shown.find((o) => o.objectId === selectedId);
  const selectedValue = selected?.geometry.kind === 'pct' ? selected.geometry.value : undefined;

  // The frame's points.
  useEffect(() => {
    const scene = sceneRef.current;
    if (!scene) return;
    scene.setCloud(cloud, mode);
    if (cloud) setShownFrame(page);
  }, [cloud, mode, page]);

  // Draws on every change of what is shown.
  useEffect(() => {
    sceneRef.current?.render(top, orbit);
    drawOverlay();
  });

  /** The top view's 2D layer: the selected cuboid's handle and the line being drawn. */
  const drawOverlay = () => {
    const overlay = overlayRef.current;
    const ctx = overlay?.getContext('2d');
    if (!overlay || !ctx) return;
    ctx.clearRect(0, 0, overlay.width, overlay.height);
    if (selectedValue?.cuboid) {
      const [hx, hy] = topToScreen(top, turnHandle(selectedValue.cuboid));
      ctx.fillStyle = '#ffffff';
      ctx.beginPath();
      ctx.arc(hx, hy, 6, 0, Math.PI * 2);
      ctx.fill();
    }
    if (drawing.length) {
      ctx.strokeStyle = '#ffd400';
      ctx.beginPath();
      drawing.forEach((p, i) => {
        const [sx, sy] = topToScreen(top, [p.x, p.y]);
        if (i === 0) ctx.moveTo(sx, sy);
        else ctx.lineTo(sx, sy);
      });
      ctx.stroke();
      for (const p of drawing) {
        const [sx, sy] = topToScreen(top, [p.x, p.y]);
        ctx.fillStyle = '#ffd400';
        ctx.fillRect(sx - 3, sy - 3, 6, 6);
      }
    }
  };

  const turnHandle = (c: Cuboid): Vec => {
    const reach = c.dimensions.length / 2 + Math.max(0.8, 12 / top.scale);
    return [c.center.x + Math.cos(c.yaw) * reach, c.center.y + Math.sin(c.yaw) * reach];
  };

  const change = history.change;
  /** The object's shape on this frame: a keyframe made or changed here. */
  const reshape = (id: string, value: PctValue) => {
    change({
      ...answer,
      objects: setKeyframe(answer.objects, id, page, (e) => ({ ...e, geometry: { kind: 'pct', value } })),
    });
  };

  /** A cuboid's place on this frame, unless it overlaps another where overlaps are refused. */
  const placeCuboid = (id: string, cuboid: Cuboid): boolean => {
    const other = noOverlap ? overlapping(cuboid, shown, id, titles) : undefined;
    if (other) {
      setMessage(
        `Not placed: the cuboid would overlap a ${other} cuboid on frame ${page + 1}, and this project does not allow overlapping cuboids.`,
      );
      return false;
    }
    setMessage(undefined);
    return true;
  };

  const nextInstance = () => {
    let n = 0;
    for (const o of answer.objects) {
      const id = o.extra.instanceId;
      if (typeof id === 'number') n = Math.max(n, id);
    }
    return n + 1;
  };

  const add = (schemaId: string, value: PctValue) => {
    const tool = tools.find((t) => t.schemaId === schemaId);
    const object: EditorObject = {
      objectId: newId(),
      schemaId,
      geometry: { kind: 'pct', value },
      where: { page },
      classifications: [],
      extra: tool?.hasInstance ? { instanceId: nextInstance() } : {},
    };
    change({ ...answer, objects: [...answer.objects, object] });
    setSelectedId(object.objectId);
  };

  /** A click on the ground with the cuboid tool: a cuboid fitted to the points there. */
  const placeAt = (ground: Vec) => {
    if (!active || active.marking !== 'cuboid' || !cloud) return;
    const tool = tools.find((t) => t.schemaId === active.schemaId);
    const preset = tool?.presetCuboidDimensions
      ? {
          ...(tool.cuboidLength ? { length: tool.cuboidLength } : {}),
          ...(tool.cuboidWidth ? { width: tool.cuboidWidth } : {}),
          ...(tool.cuboidHeight ? { height: tool.cuboidHeight } : {}),
        }
      : undefined;
    const cuboid = fitCuboid(cloud.positions, ground[0], ground[1], preset ? { preset } : {});
    if (!cuboid) {
      setMessage('No object here: click on the points of an object, not on the bare ground.');
      return;
    }
    if (!placeCuboid('', cuboid)) return;
    add(active.schemaId, { markingTool: 'cuboid', cuboid });
  };

  /** Ends the line being drawn, in the top view or on a camera's image (too few points: said, kept). */
  const finishLine = () => {
    const points = drawing.length ? drawing : drawing2d?.points;
    if (!active || !points?.length) return;
    const need = active.marking === 'polygon' || active.marking === 'polygon2d' ? 3 : 2;
    if (points.length < need) {
      setMessage(`A ${MARKING_NAMES[active.marking]} needs ${need} points or more.`);
      return;
    }
    if (drawing.length) add(active.schemaId, { markingTool: active.marking, points: drawing });
    else if (drawing2d)
      add(active.schemaId, { markingTool: active.marking, sensor: drawing2d.sensor, points: drawing2d.points });
    stopLines();
    setMessage(undefined);
  };

  const stopLines = () => {
    setDrawing([]);
    setDrawing2d(undefined);
  };

  const onPointerDown = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const hit = regionAt(e);
    if (!hit) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    if (hit.name === 'perspective') {
      gesture.current = { type: 'orbit', last: hit.at, pan: e.shiftKey || e.button === 2 };
      return;
    }
    const ground = topToGround(top, hit.at);
    if (!readOnly && selectedValue?.cuboid && selected) {
      const [hx, hy] = topToScreen(top, turnHandle(selectedValue.cuboid));
      if (Math.hypot(hx - hit.at[0], hy - hit.at[1]) <= 9) {
        gesture.current = { type: 'turn', id: selected.objectId, start: selectedValue.cuboid };
        return;
      }
    }
    if (active && !readOnly && !onImage({ markingTool: active.marking })) {
      gesture.current = { type: 'place', at: hit.at, moved: false };
      return;
    }
    // Select: a click on a cuboid picks it (the smallest under the pointer); a drag moves it.
    const under = shown
      .filter((o) => o.geometry.kind === 'pct' && o.geometry.value.cuboid)
      .map((o) => ({ o, c: (o.geometry.value as PctValue).cuboid as Cuboid }))
      .filter(({ c }) => pointInPolygon(ground, groundCorners(c)))
      .sort((a, b) => a.c.dimensions.length * a.c.dimensions.width - b.c.dimensions.length * b.c.dimensions.width)[0];
    if (under) {
      setSelectedId(under.o.objectId);
      if (!readOnly)
        gesture.current = { type: 'move', id: under.o.objectId, from: ground, start: under.c, moved: false };
      return;
    }
    setSelectedId(undefined);
    gesture.current = { type: 'pan', last: hit.at };
  };

  const [live, setLive] = useState<{ id: string; cuboid: Cuboid } | undefined>(undefined);

  const onPointerMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const g = gesture.current;
    const canvas = canvasRef.current;
    if (!g || !canvas) return;
    const r = canvas.getBoundingClientRect();
    const at: Vec = [e.clientX - r.left, e.clientY - r.top];
    if (g.type === 'pan') {
      setTop((v) => panTop(v, at[0] - g.last[0], at[1] - g.last[1]));
      g.last = at;
    } else if (g.type === 'orbit') {
      orbitBy(at[0] - g.last[0], at[1] - g.last[1], g.pan);
      g.last = at;
    } else if (g.type === 'move') {
      const ground = topToGround(top, at);
      const dx = ground[0] - g.from[0];
      const dy = ground[1] - g.from[1];
      if (Math.hypot(dx, dy) * top.scale > 2) g.moved = true;
      if (g.moved) {
        const c = g.start;
        setLive({ id: g.id, cuboid: { ...c, center: { ...c.center, x: c.center.x + dx, y: c.center.y + dy } } });
      }
    } else if (g.type === 'turn') {
      const ground = topToGround(top, at);
      const c = g.start;
      const yaw = Math.atan2(ground[1] - c.center.y, ground[0] - c.center.x);
      setLive({ id: g.id, cuboid: { ...c, yaw } });
    } else if (g.type === 'place') {
      if (Math.hypot(at[0] - g.at[0], at[1] - g.at[1]) > 4) g.moved = true;
      if (g.moved) setTop((v) => panTop(v, at[0] - g.at[0], at[1] - g.at[1]));
      if (g.moved) g.at = at;
    }
  };

  const onPointerUp = () => {
    const g = gesture.current;
    gesture.current = undefined;
    if (!g) return;
    if ((g.type === 'move' || g.type === 'turn') && live) {
      const cuboid = { ...live.cuboid, yaw: wrapAngle(live.cuboid.yaw) };
      setLive(undefined);
      if (placeCuboid(live.id, cuboid)) reshape(live.id, { markingTool: 'cuboid', cuboid });
    } else if (g.type === 'place' && !g.moved && active) {
      const ground = topToGround(top, g.at);
      if (active.marking === 'cuboid') placeAt(ground);
      else {
        // A click on the last point adds nothing: the second click of a double click, which finishes the line.
        const last = drawing[drawing.length - 1];
        const [lx, ly] = last ? topToScreen(top, [last.x, last.y]) : [Infinity, Infinity];
        if (Math.hypot(lx - g.at[0], ly - g.at[1]) <= SAME_POINT_PX) return;
        const z = cloud ? groundHeight(cloud.positions, ground[0], ground[1], 2) : 0;
        setDrawing((d) => [...d, { x: ground[0], y: ground[1], z }]);
      }
    }
  };

  // While a cuboid is dragged it is shown where it goes; the answer changes on release.
  const drawn = useMemo(
    () =>
      live
        ? shown.map((o) =>
            o.objectId === live.id
              ? {
                  ...o,
                  geometry: { kind: 'pct' as const, value: { markingTool: 'cuboid' as const, cuboid: live.cuboid } },
                }
              : o,
          )
        : shown,
    [shown, live],
  );
  // The objects of the frame, drawn in 3D.
  useEffect(() => {
    sceneRef.current?.setObjects(
      drawn.flatMap((o) =>
        o.geometry.kind === 'pct' && !onImage(o.geometry.value)
          ? [
              {
                id: o.objectId,
                color: space.colors.get(o.schemaId) ?? '#e6194b',
                value: o.geometry.value,
                selected: o.objectId === selectedId,
              },
            ]
          : [],
      ),
    );
    // Drawn now: the drawing effect above ran before the objects changed.
    sceneRef.current?.render(top, orbit);
  }, [drawn, selectedId, space.colors]);

  /** An object's name on a frame (its first keyframe's when none is given), as the objects list says it. */
  const nameOf = (objectId: string, frame: number | undefined) => {
    const first = answer.objects.find((o) => o.objectId === objectId);
    if (!first) return undefined;
    return objectNumbering(objectsOnPage(answer.objects, frame ?? first.where?.page ?? page), ontology).get(objectId);
  };

  const remove = (id: string) => {
    change({ ...answer, objects: answer.objects.filter((o) => o.objectId !== id) });
    setSelectedId(undefined);
  };

  const turn = (degrees: number) => {
    const c = selectedValue?.cuboid;
    if (!c || !selected || readOnly) return;
    const cuboid = { ...c, yaw: wrapAngle(c.yaw + (degrees * Math.PI) / 180) };
    if (placeCuboid(selected.objectId, cuboid)) reshape(selected.objectId, { markingTool: 'cuboid', cuboid });
  };

  const keyframeStep = (direction: 1 | -1) => {
    const target = selectedId ? keyframeStepFrom(answer.objects, selectedId, page, direction) : undefined;
    if (target !== undefined) go(target);
  };

  // The editor's keys.
  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.metaKey) return;
      let handled = true;
      const step = e.shiftKey ? 10 : 1;
      if (e.ctrlKey) {
        if (e.key.toLowerCase() === 'z') history.travel(e.shiftKey ? 'redo' : 'undo');
        else if (e.key.toLowerCase() === 'y') history.travel('redo');
        else handled = false;
      } else if (e.key === 'ArrowRight' && e.altKey) keyframeStep(1);
      else if (e.key === 'ArrowLeft' && e.altKey) keyframeStep(-1);
      else if (e.key === 'ArrowRight' || e.key === '.' || e.key === '>') go(page + step);
      else if (e.key === 'ArrowLeft' || e.key === ',' || e.key === '<') go(page - step);
      else if (e.key === '[' || e.key === '{') turn(step);
      else if (e.key === ']' || e.key === '}') turn(-step);
      // Enter finishes a line being drawn; otherwise it is left to what has the focus (a button).
      else if (e.key === 'Enter' && (drawing.length > 0 || drawing2d)) finishLine();
      else if (e.key === 'Escape' || e.key.toLowerCase() === 'v') {
        stopLines();
        setActive(undefined);
        if (e.key === 'Escape') setSelectedId(undefined);
      } else if ((e.key === 'Delete' || e.key === 'Backspace') && selectedId && !readOnly) remove(selectedId);
      else {
        const schemaId = space.shortcuts.get(e.key.toLowerCase());
        const tool = tools.find((t) => t.schemaId === schemaId);
        if (tool && !readOnly) setActive({ schemaId: tool.schemaId, marking: allowed(tool)[0] ?? 'cuboid' });
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

  const setCuboidField = (field: string, value: number) => {
    const c = selectedValue?.cuboid;
    if (!c || !selected || !Number.isFinite(value)) return;
    const next: Cuboid =
      field === 'yaw'
        ? { ...c, yaw: wrapAngle((value * Math.PI) / 180) }
        : field === 'x' || field === 'y' || field === 'z'
          ? { ...c, center: { ...c.center, [field]: value } }
          : { ...c, dimensions: { ...c.dimensions, [field]: Math.max(0.05, value) } };
    if (placeCuboid(selected.objectId, next)) reshape(selected.objectId, { markingTool: 'cuboid', cuboid: next });
  };

  const selectedTrack = selectedId ? tracksOf(answer.objects).find((t) => t.objectId === selectedId) : undefined;
  const hiddenHere = !!selectedTrack?.keyframes.filter((k) => k.page <= page).at(-1)?.hidden;
  const hideAt = (hidden: boolean) => {
    if (!selectedId) return;
    const objects = setKeyframe(answer.objects, selectedId, page, (entry) => {
      const { interpolationStopped: _was, ...extra } = entry.extra;
      return { ...entry, extra: hidden ? { ...extra, interpolationStopped: true } : extra };
    });
    change({ ...answer, objects });
  };

  const frameShown = { frame: shownFrame, ready: shownFrame === page && !!cloud, points: cloud?.count ?? 0 };
  const toolbar = (
    <>
      <button
        type="button"
        aria-pressed={active === undefined}
        onClick={() => setActive(undefined)}
        aria-keyshortcuts="V"
      >
        Select
      </button>
      {tools.flatMap((t) =>
        allowed(t).map((marking) => (
          <ToolButton
            key={`${t.schemaId}-${marking}`}
            {...space.buttonOf(t)}
            tool={{ ...t, title: allowed(t).length > 1 ? `${t.title} ${MARKING_NAMES[marking]}` : t.title }}
            shortcut={marking === allowed(t)[0] ? space.keyOf(t.schemaId) : undefined}
            label={`${t.title} ${MARKING_NAMES[marking]} tool`}
            title={`${t.title}: ${MARKING_NAMES[marking]}`}
            pressed={active?.schemaId === t.schemaId && active.marking === marking}
            disabled={readOnly}
            onClick={() => {
              stopLines();
              setActive({ schemaId: t.schemaId, marking });
            }}
          />
        )),
      )}
      <HistoryAndColour history={history} mode={mode} setMode={setMode} intensity={!!cloud?.intensity} />
    </>
  );

  return (
    <EditorShell
      className="editor pointcloud-editor"
      toolbarLabel="Point cloud tools"
      toolbar={toolbar}
      help={{
        tools: tools.flatMap((t) => {
          const key = space.keyOf(t.schemaId);
          return key ? [{ key, title: t.title }] : [];
        }),
        keys: POINTCLOUD_KEYS,
      }}
      given={{ ontology, problems: props.problems, readOnly, aside: props.aside, actions: props.actions }}
      editing={{
        answer: shownAnswer,
        colors: space.colors,
        selectedId,
        onSelect: setSelectedId,
        onChange: (next) => change(mergeShown(answer, shownAnswer, next, page)),
      }}
    >
      <div className="pointcloud-main">
        <ViewMessage message={message} frameError={frameError} />
        <ExternalCheckNotice check={externalCheck} go={go} onSelect={setSelectedId} nameOf={nameOf} />
        <PointCloudViews
          scene={view}
          label="Point cloud: top view, 3D view, side and front views of the selected cuboid"
          shown={frameShown}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onDoubleClick={finishLine}
        />
        {selectedValue?.cuboid && (
          <fieldset className="pointcloud-cuboid" disabled={readOnly}>
            <legend>Selected cuboid (metres, degrees)</legend>
            {(
              [
                ['x', selectedValue.cuboid.center.x],
                ['y', selectedValue.cuboid.center.y],
                ['z', selectedValue.cuboid.center.z],
                ['length', selectedValue.cuboid.dimensions.length],
                ['width', selectedValue.cuboid.dimensions.width],
                ['height', selectedValue.cuboid.dimensions.height],
                ['yaw', (selectedValue.cuboid.yaw * 180) / Math.PI],
              ] as [string, number][]
            ).map(([field, value]) => (
              <label key={field}>
                {field}{' '}
                <input
                  type="number"
                  step={field === 'yaw' ? 1 : 0.05}
                  defaultValue={value.toFixed(2)}
                  key={`${selectedId}-${page}-${value.toFixed(3)}`}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter') setCuboidField(field, Number(e.currentTarget.value));
                  }}
                  onBlur={(e) => setCuboidField(field, Number(e.currentTarget.value))}
                />
              </label>
            ))}
          </fieldset>
        )}
        <FrameBar
          page={page}
          total={total}
          go={go}
          shown={frameShown}
          actions={
            selectedId &&
            !readOnly && (
              <button type="button" onClick={() => hideAt(!hiddenHere)}>
                {hiddenHere ? 'Show again' : 'Hide from here'}
              </button>
            )
          }
        >
          <Timeline total={total} page={page} tracks={tracksOf(answer.objects)} selectedId={selectedId} onSeek={go} />
        </FrameBar>
        {cameras.list.length > 0 || cameras.problem ? (
          <div className="pointcloud-cameras">
            <ErrorNotice place="form" className="pointcloud-message" error={cameras.problem} />
            {cameras.list.map((camera) => (
              <CameraView
                key={camera.calibration.name}
                camera={camera}
                page={page}
                objects={drawn}
                colors={space.colors}
                selectedId={selectedId}
                active={active && onImage({ markingTool: active.marking }) ? active : undefined}
                readOnly={readOnly}
                onAdd={(value) => active && add(active.schemaId, value)}
                line={drawing2d?.sensor === camera.calibration.name ? drawing2d.points : []}
                onLinePoint={(p) =>
                  setDrawing2d((d) =>
                    d?.sensor === camera.calibration.name
                      ? { ...d, points: [...d.points, p] }
                      : { sensor: camera.calibration.name, points: [p] },
                  )
                }
                onLineEnd={finishLine}
                onSelect={setSelectedId}
              />
            ))}
          </div>
        ) : null}
      </div>
    </EditorShell>
  );
}
