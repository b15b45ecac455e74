import { blend, interpolatedKeyOf, interpolates } from '../../../shared/tracks.js';
import type { TaskPageRow } from '../../../store/repositories/export.repository.js';
import { videoFrames } from '../export-frames.js';
import { videoBrushFrames } from '../../files/layers/brush-frames.js';
import { attributesOf, type DatasetClass, type DatasetOntology } from '../../files/layers/ontology-classes.js';

/*
 * A task as the dataset formats read it: its asset's file name and size, its objects with their
 * class, and its classification answers as readable attributes. Video (and paged) assets hold
 * one entry per object and frame, `page` counted from 0 (DECISIONS 10). A point cloud's object
 * keeps its shape under its marking tool's key (`cuboid`, `box`, `points`).
 */

export interface DatasetObject {
  objectId: string;
  cls: DatasetClass;
  /** The geometry under the tool kind's key (a point cloud's: its marking tool's), as stored. */
  geometry: unknown;
  /** A point cloud's marking tool (`cuboid`, `polygon`, ...); undefined for other tools. */
  markingTool: string | undefined;
  /** The frame (or page) of the entry, from 0; undefined on still images. */
  page: number | undefined;
  /** The object is gone from this frame on (a track's end). */
  stopped: boolean;
  attributes: Record<string, unknown>;
}

export interface DatasetTask {
  taskId: string;
  assetId: string;
  externalId: string;
  url: string;
  /** A file name unique in the export, from the externalId. */
  fileName: string;
  /** fileName without its extension: the name of per-image files (labels, XML, masks). */
  stem: string;
  width: number | undefined;
  height: number | undefined;
  frameTotal: number | undefined;
  /** The asset's metadata as stored (a point cloud's cameras are under `pct`). */
  metadata: Record<string, unknown>;
  /** The asset's `dataset`: the pages' or lidar frames' URLs, in order. */
  frameUrls: string[];
  /** Frames of point labels in the answer (`pointLabels`). */
  pointLabelFrames: number;
  /** True for assets with frames: metadata.frameTotal, or entries carrying `page`. */
  framed: boolean;
  /**
   * A video's last frame when its tracks are expanded to every frame they are shown on (the
   * asset's, or the last an entry names); undefined: entries as stored (paged assets,
   * includeOnlyKeyFrames=true).
   */
  expandTo: number | undefined;
  objects: DatasetObject[];
  attributes: Record<string, unknown>;
  /** A still image's brush layer. */
  brushDataUrl: string | null;
  /** A video's brush layers by frame (files/layers/brush-frames.ts); empty for other assets. */
  brushFrames: Map<number, string>;
  /** Entries whose schemaId is no tool of the ontology (counted, not exported). */
  unknownObjects: number;
  /** Relations between objects: no dataset format holds them (counted). */
  relations: number;
}

const positive = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : undefined;

function parse(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function urlList(text: string | null): string[] {
  try {
    const v = text ? (JSON.parse(text) as unknown) : [];
    return Array.isArray(v) ? v.map((u) => (typeof u === 'string' ? u : '')) : [];
  } catch {
    return [];
  }
}

/** Gives every asset a distinct, safe file name: the last segment of its externalId. */
export class FileNames {
  private readonly seen = new Set<string>();

  name(externalId: string, assetId: string): string {
    const last = externalId.split(/[\\/]/).pop() ?? '';
    let name = last.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '') || assetId;
    if (this.seen.has(name)) name = `${assetId}_${name}`;
    this.seen.add(name);
    return name;
  }
}

export function stemOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}

export function datasetTask(
  row: TaskPageRow,
  ontology: DatasetOntology,
  names: FileNames,
  keyframesOnly = false,
): DatasetTask {
  const metadata = parse(row.metadata);
  const answer = parse(row.answer);
  const tools = (Array.isArray(answer.tools) ? answer.tools : Array.isArray(answer.objects) ? answer.objects : []) as
    Record<string, unknown>[] | never[];
  const objects: DatasetObject[] = [];
  let unknownObjects = 0;
  for (const obj of tools) {
    const cls = obj && typeof obj === 'object' ? ontology.byId.get(String(obj.schemaId)) : undefined;
    if (!cls) {
      unknownObjects++;
      continue;
    }
    const page = typeof obj.page === 'number' && Number.isInteger(obj.page) && obj.page >= 0 ? obj.page : undefined;
    const pct = cls.tool === 'pct';
    const pctKey = pct ? interpolatedKeyOf(obj) : undefined;
    objects.push({
      objectId: typeof obj.objectId === 'string' ? obj.objectId : `${row.id}-${objects.length}`,
      cls,
      geometry: pct ? (pctKey === undefined ? undefined : obj[pctKey]) : obj[cls.tool],
      markingTool: pct && typeof obj.markingTool === 'string' ? obj.markingTool : undefined,
      page,
      stopped: obj.interpolationStopped === true,
      attributes: attributesOf(
        ontology,
        Array.isArray(obj.classifications) ? (obj.classifications as Record<string, unknown>[]) : [],
      ),
    });
  }
  const frameTotal = positive(metadata.frameTotal);
  const fileName = names.name(row.external_id, row.asset_id);
  const framed = frameTotal !== undefined || objects.some((o) => o.page !== undefined);
  const video = framed && !keyframesOnly ? videoFrames(row) : undefined;
  const expandTo =
    video === undefined ? undefined : video === null ? Math.max(0, ...objects.map((o) => o.page ?? 0)) : video - 1;
  return {
    taskId: row.id,
    assetId: row.asset_id,
    externalId: row.external_id,
    url: row.data,
    fileName,
    stem: stemOf(fileName),
    width: positive(metadata.width),
    height: positive(metadata.height),
    frameTotal,
    metadata,
    frameUrls: urlList(row.dataset),
    pointLabelFrames: Array.isArray(answer.pointLabels) ? answer.pointLabels.length : 0,
    framed,
    expandTo,
    objects,
    attributes: attributesOf(
      ontology,
      Array.isArray(answer.classifications) ? (answer.classifications as Record<string, unknown>[]) : [],
    ),
    brushDataUrl: row.brush_data_url,
    brushFrames: new Map(videoBrushFrames(row, row.metadata).map((f) => [f.page, f.url])),
    unknownObjects,
    relations: Array.isArray(answer.relations) ? answer.relations.length : 0,
  };
}

export interface DatasetFrame {
  frame: number | undefined;
  objects: DatasetObject[];
}

/**
 * The frames of a task with their objects, in frame order: one (frame undefined) for a still
 * image. A stopped entry ends its object: it is not drawn on that frame. A video's tracks are
 * expanded to every frame they are shown on (`expandTo`), by the editor's rules
 * (src/shared/tracks.ts); only frames showing an object or having a brush layer are given. A
 * generator: a frame's objects are made when it is read.
 */
export function* framesOf(task: DatasetTask): Generator<DatasetFrame> {
  if (!task.framed) {
    yield { frame: undefined, objects: task.objects };
    return;
  }
  const shown = task.expandTo !== undefined ? expandedFrames(task.objects, task.expandTo) : keyFrames(task.objects);
  yield* withLayerFrames(
    shown,
    [...task.brushFrames.keys()].sort((a, b) => a - b),
  );
}

/** `frames` (in frame order) with the frames of `layers` that show no object added in place. */
function* withLayerFrames(frames: Iterable<DatasetFrame>, layers: readonly number[]): Generator<DatasetFrame> {
  let i = 0;
  for (const f of frames) {
    const at = f.frame ?? 0;
    for (; i < layers.length && (layers[i] as number) < at; i++) yield { frame: layers[i], objects: [] };
    if (layers[i] === at) i++;
    yield f;
  }
  for (; i < layers.length; i++) yield { frame: layers[i], objects: [] };
}

/** The frames of the entries as stored (paged assets, includeOnlyKeyFrames=true). */
function* keyFrames(objects: readonly DatasetObject[]): Generator<DatasetFrame> {
  const byFrame = new Map<number, DatasetObject[]>();
  for (const o of objects) {
    const frame = o.page ?? 0;
    if (o.stopped) continue;
    const list = byFrame.get(frame);
    if (list) list.push(o);
    else byFrame.set(frame, [o]);
  }
  for (const [frame, list] of [...byFrame.entries()].sort((a, b) => a[0] - b[0])) yield { frame, objects: list };
}

/** Every frame from the first keyframe to `last`, each track's object on it (moved or held). */
function* expandedFrames(objects: readonly DatasetObject[], last: number): Generator<DatasetFrame> {
  const byId = new Map<string, Map<number, DatasetObject>>();
  for (const o of objects) {
    const track = byId.get(o.objectId) ?? new Map<number, DatasetObject>();
    track.set(o.page ?? 0, o);
    byId.set(o.objectId, track);
  }
  const tracks = [...byId.values()].map((t) => [...t.values()].sort((a, b) => (a.page ?? 0) - (b.page ?? 0)));
  const at = tracks.map(() => -1);
  const first = Math.min(...tracks.map((t) => t[0]?.page ?? 0));
  for (let f = first; f <= last; f++) {
    const shown: DatasetObject[] = [];
    tracks.forEach((track, i) => {
      let k = at[i] as number;
      while (k + 1 < track.length && ((track[k + 1] as DatasetObject).page ?? 0) <= f) k++;
      at[i] = k;
      const key = track[k];
      if (!key || key.stopped) return;
      const page = key.page ?? 0;
      if (page === f) return void shown.push(key);
      const next = track[k + 1];
      const geometry =
        next && interpolates(key.cls.tool)
          ? blend(key.geometry, next.geometry, (f - page) / ((next.page ?? 0) - page))
          : key.geometry;
      shown.push({ ...key, page: f, geometry });
    });
    if (shown.length) yield { frame: f, objects: shown };
  }
}
