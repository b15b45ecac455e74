import { useEffect, useRef, useState } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import {
  checkCamera,
  toCamera,
  type CameraCalibration,
  type Intrinsics,
} from '../../../../../src/shared/pointcloud/calibration';
import { PointCloudError } from '../../../../../src/shared/pointcloud/cloud';
import { corners, EDGES } from '../../../../../src/shared/pointcloud/cuboid';
import type { EditorObject, Vec } from '../../core/answer';
import { onImage, type MarkingTool, type PctValue, type Point3 } from '../../tools/pct';

/** A camera with its image per frame. */
export type CameraWithImages = CameraCalibration & { images: string[] };

export interface Camera {
  calibration: CameraWithImages;
  /** Why its objects are not projected (a calibration that does not invert). */
  problem?: string;
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The cameras of an asset's `metadata.pct`, each with what is wrong with its calibration. */
export function readCameras(pct: unknown): { list: Camera[]; problem?: string } {
  if (pct === undefined || pct === null) return { list: [] };
  if (!isRec(pct) || (pct.cameras !== undefined && !Array.isArray(pct.cameras))) {
    return { list: [], problem: "The asset's camera list (metadata.pct.cameras) is not a list: no camera is shown." };
  }
  const list: Camera[] = [];
  for (const [i, raw] of ((pct.cameras as unknown[] | undefined) ?? []).entries()) {
    if (!isRec(raw) || !Array.isArray(raw.images)) continue;
    const calibration = {
      name: typeof raw.name === 'string' ? raw.name : `camera ${i + 1}`,
      images: raw.images.filter((u): u is string => typeof u === 'string'),
      intrinsics: raw.intrinsics,
      extrinsics: raw.extrinsics,
    } as CameraWithImages;
    try {
      checkCamera(calibration, 'calibration');
      list.push({ calibration });
    } catch (e) {
      const why = e instanceof PointCloudError ? e.message : 'the calibration is unreadable';
      list.push({ calibration, problem: `Camera ${calibration.name}: ${why}; objects are not projected on it.` });
    }
  }
  return { list };
}

type P3 = { x: number; y: number; z: number };

/** Screen pixels within which a click lands on the last point of a line being drawn. */
export const SAME_POINT_PX = 4;

/**
 * A segment of LiDAR space as drawn on a camera's image: clipped to what lies in front of the
 * camera, then projected. Undefined when all of it is behind.
 */
function projectSegment(c: CameraCalibration, a: P3, b: P3, near = 0.1): [Vec, Vec] | undefined {
  let qa = toCamera(c.extrinsics, a);
  let qb = toCamera(c.extrinsics, b);
  if (qa.z < near && qb.z < near) return undefined;
  const cut = (front: P3, back: P3): P3 => {
    const t = (front.z - near) / (front.z - back.z);
    return { x: front.x + (back.x - front.x) * t, y: front.y + (back.y - front.y) * t, z: near };
  };
  if (qa.z < near) qa = cut(qb, qa);
  else if (qb.z < near) qb = cut(qa, qb);
  const k: Intrinsics = c.intrinsics;
  const pixel = (q: P3): Vec => [k.fx * (q.x / q.z) + k.cx, k.fy * (q.y / q.z) + k.cy];
  return [pixel(qa), pixel(qb)];
}

/**
 * One camera's image of the frame with the objects drawn on it: cuboids and 3D lines projected
 * through its calibration, rectangles and 2D lines drawn on it. The 2D marking tools draw here.
 */
export function CameraView(props: {
  camera: Camera;
  page: number;
  objects: readonly EditorObject[];
  colors: Map<string, string>;
  selectedId: string | undefined;
  active: { schemaId: string; marking: MarkingTool } | undefined;
  readOnly: boolean | undefined;
  onAdd(value: PctValue): void;
  /** The 2D line being drawn on this camera (image pixels); the editor keeps it. */
  line?: readonly [number, number][];
  /** A point clicked with a 2D line tool. */
  onLinePoint?(p: [number, number]): void;
  /** A double click: finish the 2D line. */
  onLineEnd?(): void;
  onSelect(id: string | undefined): void;
}) {
  const { camera, page } = props;
  const line = props.line ?? [];
  const c = camera.calibration;
  const url = c.images[page];
  const canvas = useRef<HTMLCanvasElement>(null);
  const [image, setImage] = useState<{ page: number; img: HTMLImageElement } | { page: number; error: string }>();
  const [drag, setDrag] = useState<{ from: Vec; to: Vec } | undefined>(undefined);
  const width = 420;
  const natural: Vec =
    image && 'img' in image
      ? [image.img.naturalWidth, image.img.naturalHeight]
      : [c.intrinsics?.width ?? 640, c.intrinsics?.height ?? 480];
  const scale = width / Math.max(1, natural[0]);
  const height = Math.round(natural[1] * scale);

  useEffect(() => {
    if (!url) return setImage({ page, error: `Camera ${c.name} has no image for frame ${page + 1}.` });
    let live = true;
    const img = new Image();
    img.crossOrigin = 'anonymous';
    img.onload = () => live && setImage({ page, img });
    img.onerror = () =>
      live && setImage({ page, error: `Camera ${c.name}: the image of frame ${page + 1} did not load.` });
    img.src = url;
    return () => {
      live = false;
    };
  }, [url, page, c.name]);

  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, width, height);
    if (image && 'img' in image) ctx.drawImage(image.img, 0, 0, width, height);
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    const segment = (a: Point3, b: Point3) => {
      const s = projectSegment(c, a, b);
      if (!s) return;
      ctx.moveTo(s[0][0], s[0][1]);
      ctx.lineTo(s[1][0], s[1][1]);
    };
    for (const o of props.objects) {
      if (o.geometry.kind !== 'pct') continue;
      const v = o.geometry.value;
      ctx.strokeStyle = props.colors.get(o.schemaId) ?? '#e6194b';
      ctx.lineWidth = (o.objectId === props.selectedId ? 3 : 1.5) / scale;
      ctx.beginPath();
      if (onImage(v)) {
        if (v.sensor !== c.name) continue;
        if (v.box) ctx.rect(v.box.x, v.box.y, v.box.width, v.box.height);
        const pts = (v.points ?? []) as [number, number][];
        pts.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
        if (v.markingTool === 'polygon2d') ctx.closePath();
      } else if (!camera.problem) {
        if (v.cuboid) {
          const k = corners(v.cuboid);
          for (const [i, j] of EDGES) segment(k[i]!, k[j]!);
        }
        const pts = (v.points ?? []) as Point3[];
        for (let i = 0; i + 1 < pts.length; i++) segment(pts[i]!, pts[i + 1]!);
        if (v.markingTool === 'polygon' && pts.length > 2) segment(pts[pts.length - 1]!, pts[0]!);
      }
      ctx.stroke();
    }
    ctx.strokeStyle = '#ffd400';
    ctx.lineWidth = 2 / scale;
    ctx.beginPath();
    if (drag) {
      ctx.rect(
        Math.min(drag.from[0], drag.to[0]),
        Math.min(drag.from[1], drag.to[1]),
        Math.abs(drag.to[0] - drag.from[0]),
        Math.abs(drag.to[1] - drag.from[1]),
      );
    }
    line.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
    ctx.stroke();
  });

  const toImage = (e: React.PointerEvent | React.MouseEvent): Vec => {
    const r = e.currentTarget.getBoundingClientRect();
    return [(e.clientX - r.left) / scale, (e.clientY - r.top) / scale];
  };
  const marking = props.active?.marking;

  return (
    <figure className="pointcloud-camera">
      <figcaption>
        {c.name}
        <ErrorNotice place="inline" className="pointcloud-message" error={camera.problem} />
        {image && 'error' in image && <ErrorNotice place="inline" className="pointcloud-message" error={image.error} />}
      </figcaption>
      <canvas
        ref={canvas}
        width={width}
        height={height}
        tabIndex={-1}
        aria-label={`Camera ${c.name}, frame ${page + 1}`}
        data-camera={c.name}
        data-scale={scale}
        data-ready={image && 'img' in image && image.page === page ? 'true' : 'false'}
        onPointerDown={(e) => {
          if (props.readOnly || !marking) return;
          const at = toImage(e);
          if (marking === 'rectangle') {
            e.currentTarget.setPointerCapture(e.pointerId);
            setDrag({ from: at, to: at });
          }
        }}
        onPointerMove={(e) => drag && setDrag({ ...drag, to: toImage(e) })}
        onPointerUp={(e) => {
          if (drag) {
            const to = toImage(e);
            const box = {
              x: Math.min(drag.from[0], to[0]),
              y: Math.min(drag.from[1], to[1]),
              width: Math.abs(to[0] - drag.from[0]),
              height: Math.abs(to[1] - drag.from[1]),
            };
            setDrag(undefined);
            if (box.width >= 2 && box.height >= 2) props.onAdd({ markingTool: 'rectangle', sensor: c.name, box });
          } else if (marking === 'polygon2d' || marking === 'polyline2d') {
            // A click on the last point adds nothing: the second click of a double click, which finishes the line.
            const at = toImage(e);
            const last = line[line.length - 1];
            if (last && Math.hypot(last[0] - at[0], last[1] - at[1]) * scale <= SAME_POINT_PX) return;
            props.onLinePoint?.(at);
          }
        }}
        onDoubleClick={() => marking && onImage({ markingTool: marking }) && props.onLineEnd?.()}
      />
    </figure>
  );
}
