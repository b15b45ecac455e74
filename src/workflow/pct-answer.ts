import type { FieldError } from '../errors.js';
import { type Cuboid, cuboidProblem, cuboidsOverlap } from '../shared/pointcloud/cuboid.js';

/*
 * Answers of point-cloud tasks: each `tool: "pct"` entry checked by its marking tool (finite
 * numbers, positive sizes, a `sensor` that is a camera of the asset), overlapping cuboids of a
 * frame refused when the project says `allowOverlapping: false`, and `pointLabels` (run-length
 * class codes per frame) checked against the frame's point count, with the coverage rule on submit.
 */

/** The lidar's sensor name on every pct asset (cameras are named by their folders or the import). */
export const LIDAR_SENSOR_NAME = 'lidar';

/** What the asset and the project say about a pct answer. */
export interface PctRules {
  allowOverlapping: boolean;
  segmentationMode: boolean;
  /** Percentage of points that must be labelled on submit, when the rule is on. */
  completeCoverage?: number | undefined;
  /** Camera names of the asset (entries drawn on an image name one). */
  cameras?: string[] | undefined;
  pointsPerFrame?: number[] | undefined;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isPoint3 = (v: unknown) => isRecord(v) && isNum(v.x) && isNum(v.y) && isNum(v.z);
const isPoint2 = (v: unknown) => Array.isArray(v) && v.length === 2 && isNum(v[0]) && isNum(v[1]);

const MARKING: Record<string, { key: string; check: (v: unknown) => boolean; shape: string; sensor: boolean }> = {
  cuboid: { key: 'cuboid', check: (v) => cuboidProblem(v) === undefined, shape: '', sensor: false },
  polygon: {
    key: 'points',
    check: (v) => Array.isArray(v) && v.length >= 3 && v.every(isPoint3),
    shape: '[{x, y, z}, ...] (3 points or more)',
    sensor: false,
  },
  polyline: {
    key: 'points',
    check: (v) => Array.isArray(v) && v.length >= 2 && v.every(isPoint3),
    shape: '[{x, y, z}, ...] (2 points or more)',
    sensor: false,
  },
  rectangle: {
    key: 'box',
    check: (v) =>
      isRecord(v) && [v.x, v.y, v.width, v.height].every(isNum) && (v.width as number) > 0 && (v.height as number) > 0,
    shape: '{x, y, width, height} in image pixels, width and height greater than 0',
    sensor: true,
  },
  polygon2d: {
    key: 'points',
    check: (v) => Array.isArray(v) && v.length >= 3 && v.every(isPoint2),
    shape: '[[x, y], ...] in image pixels (3 points or more)',
    sensor: true,
  },
  polyline2d: {
    key: 'points',
    check: (v) => Array.isArray(v) && v.length >= 2 && v.every(isPoint2),
    shape: '[[x, y], ...] in image pixels (2 points or more)',
    sensor: true,
  },
};

/** Checks one `tool: "pct"` entry; `allowed` is the ontology tool's `markingTools`, when set. */
export function checkPctEntry(
  obj: Record<string, unknown>,
  field: string,
  allowed: readonly string[] | undefined,
  rules: PctRules | undefined,
  errors: FieldError[],
): void {
  const marking = obj.markingTool;
  const spec = typeof marking === 'string' ? MARKING[marking] : undefined;
  if (!spec) {
    errors.push({ field: `${field}.markingTool`, message: `must be one of ${Object.keys(MARKING).join(', ')}` });
    return;
  }
  if (allowed?.length && !allowed.includes(marking as string)) {
    errors.push({ field: `${field}.markingTool`, message: `this tool draws only ${allowed.join(', ')}` });
  }
  if (!spec.check(obj[spec.key])) {
    const shape = spec.key === 'cuboid' ? (cuboidProblem(obj.cuboid) as string) : `must be ${spec.shape}`;
    errors.push({ field: `${field}.${spec.key}`, message: shape });
  }
  if (obj.page === undefined)
    errors.push({ field: `${field}.page`, message: 'is required: the frame, counted from 0' });
  if (spec.sensor) {
    if (typeof obj.sensor !== 'string')
      errors.push({ field: `${field}.sensor`, message: 'must name the camera drawn on' });
    else if (rules?.cameras && !rules.cameras.includes(obj.sensor)) {
      errors.push({ field: `${field}.sensor`, message: `the asset has no camera "${obj.sensor.slice(0, 100)}"` });
    }
  }
  if (obj.instanceId !== undefined && !(Number.isInteger(obj.instanceId) && (obj.instanceId as number) >= 0)) {
    errors.push({ field: `${field}.instanceId`, message: 'must be a whole number from 0' });
  }
}

/** With `allowOverlapping: false`: two cuboids of one frame (different objects) that share volume. */
export function checkOverlaps(entries: { obj: Record<string, unknown>; field: string }[], errors: FieldError[]): void {
  const byFrame = new Map<number, { obj: Record<string, unknown>; field: string }[]>();
  for (const e of entries) {
    if (e.obj.markingTool !== 'cuboid' || e.obj.interpolationStopped === true) continue;
    if (cuboidProblem(e.obj.cuboid) !== undefined || !Number.isInteger(e.obj.page)) continue;
    const list = byFrame.get(e.obj.page as number) ?? [];
    list.push(e);
    byFrame.set(e.obj.page as number, list);
  }
  for (const [page, list] of byFrame) {
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!;
        const b = list[j]!;
        if (a.obj.objectId === b.obj.objectId) continue;
        if (cuboidsOverlap(a.obj.cuboid as Cuboid, b.obj.cuboid as Cuboid)) {
          errors.push({
            field: `${b.field}.cuboid`,
            message: `overlaps ${a.field} on frame ${page}: the project does not allow overlapping cuboids`,
          });
        }
      }
  }
}

/**
 * Checks `pointLabels` (`[{page, classes: [schemaId, ...], runs: [count, classIndex, ...]}]`);
 * `classIds` are the schemaIds a point may be labelled with. On submit with the coverage rule,
 * every frame of known size must have that share of its points labelled.
 */
export function checkPointLabels(
  input: unknown,
  field: string,
  classIds: ReadonlySet<string>,
  frames: number | undefined,
  rules: PctRules | undefined,
  submit: boolean,
  errors: FieldError[],
): unknown[] | undefined {
  if (input === undefined) {
    if (submit && rules?.segmentationMode && rules.completeCoverage && rules.pointsPerFrame?.length) {
      errors.push({
        field,
        message: `no point is labelled; at least ${rules.completeCoverage}% of each frame's points must be`,
      });
    }
    return undefined;
  }
  if (!Array.isArray(input) || input.length > 100_000) {
    errors.push({ field, message: 'must be a list of {page, classes, runs}' });
    return undefined;
  }
  const labelled = new Map<number, number>();
  input.forEach((item, k) => {
    const at = `${field}[${k}]`;
    if (!isRecord(item)) return errors.push({ field: at, message: 'must be {page, classes, runs}' });
    const page = item.page;
    if (!Number.isInteger(page) || (page as number) < 0 || (frames !== undefined && (page as number) >= frames)) {
      return errors.push({
        field: `${at}.page`,
        message: `must be a frame counted from 0${frames ? `, below ${frames}` : ''}`,
      });
    }
    if (labelled.has(page as number)) return errors.push({ field: `${at}.page`, message: 'appears twice' });
    const classes = item.classes;
    if (!Array.isArray(classes) || !classes.every((c) => typeof c === 'string')) {
      return errors.push({ field: `${at}.classes`, message: 'must be a list of schemaIds' });
    }
    const unknown = classes.findIndex((c) => !classIds.has(c as string));
    if (unknown >= 0)
      errors.push({ field: `${at}.classes[${unknown}]`, message: 'no pct tool of the ontology has this schemaId' });
    const runs = item.runs;
    if (!Array.isArray(runs) || runs.length % 2 !== 0) {
      return errors.push({ field: `${at}.runs`, message: 'must be pairs of [count, classIndex, ...]' });
    }
    let total = 0;
    let marked = 0;
    for (let r = 0; r < runs.length; r += 2) {
      const count = runs[r];
      const cls = runs[r + 1];
      if (
        !Number.isInteger(count) ||
        (count as number) < 0 ||
        !Number.isInteger(cls) ||
        (cls as number) < 0 ||
        (cls as number) > classes.length
      ) {
        return errors.push({
          field: `${at}.runs[${r}]`,
          message: `counts must be whole numbers from 0 and class indexes 0 to ${classes.length}`,
        });
      }
      total += count as number;
      if (cls !== 0) marked += count as number;
    }
    const expected = rules?.pointsPerFrame?.[page as number];
    if (expected !== undefined && total !== expected) {
      errors.push({ field: `${at}.runs`, message: `cover ${total} points; frame ${page} has ${expected}` });
    }
    labelled.set(page as number, marked);
    return undefined;
  });
  if (submit && rules?.segmentationMode && rules.completeCoverage && rules.pointsPerFrame) {
    rules.pointsPerFrame.forEach((count, page) => {
      const share = (100 * (labelled.get(page) ?? 0)) / count;
      if (share + 1e-9 < (rules.completeCoverage as number)) {
        errors.push({
          field,
          message: `frame ${page} has ${share.toFixed(1)}% of its points labelled; at least ${rules.completeCoverage}% must be`,
        });
      }
    });
  }
  return input;
}

function parsed(text: string | null | undefined): Record<string, unknown> {
  try {
    const v: unknown = text ? JSON.parse(text) : {};
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

/** The rules of a pct project's answer on one asset (stored pctConfig and asset metadata), or undefined for other projects. */
export function pctRules(
  projectType: string,
  pctConfig: string | null,
  assetMetadata: string | null | undefined,
): PctRules | undefined {
  if (projectType !== 'pct') return undefined;
  const config = parsed(pctConfig);
  const meta = parsed(assetMetadata);
  const pct = isRecord(meta.pct) ? meta.pct : {};
  const seg = isRecord(config.segmentationValidation) ? config.segmentationValidation : {};
  const counts = meta.pointsPerFrame;
  return {
    allowOverlapping: config.allowOverlapping === true,
    segmentationMode: config.segmentationMode === true,
    completeCoverage: seg.enabled === true && isNum(seg.completeCoverage) ? seg.completeCoverage : undefined,
    cameras: Array.isArray(pct.sensors)
      ? pct.sensors
          .filter((s) => isRecord(s) && s.kind === 'camera')
          .map((s) => String((s as Record<string, unknown>).name))
      : undefined,
    pointsPerFrame:
      Array.isArray(counts) && counts.every((c) => Number.isInteger(c)) ? (counts as number[]) : undefined,
  };
}
