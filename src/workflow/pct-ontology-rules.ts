import type { FieldError } from '../errors.js';
import type { CategorySchema, Classification, Tool } from '../schemas/category-schema.js';
import { LIDAR_SENSOR_NAME, type PctRules } from './pct-answer.js';

/*
 * The rules a pct ontology sets on answers beyond each entry's geometry: a tool's preset cuboid
 * dimensions and its edge length constraint, and the classifications' `attributeMode`
 * (`Time Varying`: per frame, `Sensor Specific`: per frame and sensor, `Constant`: one answer),
 * `attributeLevel` (`Class Level`: one answer for every object of the class, `Instance Level`: an
 * answer of an object) and `associatedMarkingTool` (the marking tools an object answering it may
 * have been drawn with).
 */

type Rec = Record<string, unknown>;
const isRecord = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Metres are compared to a millimetre: a preset typed as "4.5" is met by 4.5000001. */
const TOLERANCE = 0.001;

/** A pct size stored as a string ("4.5"), as a positive number, or undefined when unset or not one. */
export function pctSize(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return isNum(n) && n > 0 ? n : undefined;
}

const dist = (a: Rec, b: Rec) =>
  Math.hypot((a.x as number) - (b.x as number), (a.y as number) - (b.y as number), (a.z as number) - (b.z as number));

/** Preset dimensions and the edge length constraint of the entry's tool (its shape already checked). */
export function checkToolSizes(obj: Rec, field: string, tool: Tool, errors: FieldError[]): void {
  const limit = pctSize(tool.edgeLengthConstraint);
  if (obj.markingTool === 'cuboid' && isRecord(obj.cuboid) && isRecord(obj.cuboid.dimensions)) {
    const dims = obj.cuboid.dimensions;
    if (tool.presetCuboidDimensions) {
      const preset = { length: tool.cuboidLength, width: tool.cuboidWidth, height: tool.cuboidHeight };
      for (const [key, raw] of Object.entries(preset)) {
        const want = pctSize(raw);
        const got = dims[key];
        if (want !== undefined && isNum(got) && Math.abs(got - want) > TOLERANCE) {
          errors.push({
            field: `${field}.cuboid.dimensions.${key}`,
            message: `must be ${want} m, the tool's preset ${key} (presetCuboidDimensions)`,
          });
        }
      }
    }
    if (limit !== undefined) {
      for (const key of ['length', 'width', 'height']) {
        const got = dims[key];
        if (isNum(got) && got > limit + TOLERANCE) {
          errors.push({
            field: `${field}.cuboid.dimensions.${key}`,
            message: `is ${got} m, longer than the tool's edge length constraint of ${limit} m`,
          });
        }
      }
    }
  }
  if ((obj.markingTool === 'polygon' || obj.markingTool === 'polyline') && limit !== undefined) {
    const points = Array.isArray(obj.points) ? obj.points.filter(isRecord) : [];
    const edges = points.length - (obj.markingTool === 'polygon' ? 0 : 1);
    for (let k = 0; k < edges; k++) {
      const a = points[k] as Rec;
      const b = points[(k + 1) % points.length] as Rec;
      const length = dist(a, b);
      if (Number.isFinite(length) && length > limit + TOLERANCE) {
        errors.push({
          field: `${field}.points[${(k + 1) % points.length}]`,
          message: `the edge from point ${k} is ${length.toFixed(3)} m, longer than the tool's edge length constraint of ${limit} m`,
        });
        return;
      }
    }
  }
}

/** Every pct classification of the ontology with what it answers on: the answer or a tool's objects. */
function pctClassifications(schema: CategorySchema) {
  const out = new Map<string, { c: Classification; toolId?: string | undefined }>();
  const walk = (list: readonly Classification[] | undefined, toolId?: string) => {
    for (const c of list ?? []) {
      if (c.attributeMode || c.attributeLevel || c.associatedMarkingTool?.length) out.set(c.schemaId, { c, toolId });
      walk(c.classifications, toolId);
      for (const o of c.options ?? []) walk(o.children, toolId);
    }
  };
  walk(schema.classifications);
  for (const t of schema.tools ?? []) if (t.tool === 'pct') walk(t.classifications, t.schemaId);
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The classification answers of a pct answer held to their attributeMode, attributeLevel and
 * associatedMarkingTool: top-level ones in `classifications`, an object's in its entry's
 * `classifications` (every keyframe of a track repeats the object's answers).
 */
export function checkPctClassifications(
  schema: CategorySchema,
  tools: { obj: Rec; field: string }[],
  classifications: Rec[],
  base: string,
  rules: PctRules,
  errors: FieldError[],
): void {
  const known = pctClassifications(schema);
  if (!known.size) return;
  const sensors = new Set([LIDAR_SENSOR_NAME, ...(rules.cameras ?? [])]);
  // Answers per (classification, scope) for the Constant and Class Level rules.
  const seen = new Map<string, { answer: unknown; field: string }>();
  const agree = (key: string, answer: unknown, field: string, message: (first: string) => string) => {
    const first = seen.get(key);
    if (!first) seen.set(key, { answer, field });
    else if (!same(first.answer, answer)) errors.push({ field: `${field}.answer`, message: message(first.field) });
  };
  const check = (a: Rec, field: string, object?: Rec) => {
    const entry = known.get(a.schemaId as string);
    if (!entry) return;
    const { c } = entry;
    const mode = c.attributeMode;
    if ((mode === 'Time Varying' || mode === 'Sensor Specific') && a.page === undefined) {
      errors.push({ field: `${field}.page`, message: `is required: "${c.schemaId}" is ${mode}, answered per frame` });
    }
    if (mode === 'Sensor Specific') {
      if (typeof a.sensor !== 'string')
        errors.push({ field: `${field}.sensor`, message: `is required: "${c.schemaId}" is answered per sensor` });
      else if (!sensors.has(a.sensor))
        errors.push({ field: `${field}.sensor`, message: `the asset has no sensor "${a.sensor.slice(0, 100)}"` });
    }
    if (mode === 'Constant') {
      if (a.page !== undefined)
        errors.push({
          field: `${field}.page`,
          message: `must be left out: "${c.schemaId}" is Constant, answered once`,
        });
      const scope = object ? `object:${String(object.objectId)}` : 'answer';
      agree(`${c.schemaId}|${scope}`, a.answer, field, (first) => `differs from ${first}: "${c.schemaId}" is Constant`);
    }
    if (c.attributeLevel === 'Instance Level' && !object) {
      errors.push({
        field,
        message: `"${c.schemaId}" is Instance Level: it is answered on an object, in its entry's classifications`,
      });
    }
    if (c.attributeLevel === 'Class Level' && object) {
      const scope = `class:${String(object.schemaId)}|${mode === 'Constant' || a.page === undefined ? '' : String(a.page)}`;
      agree(
        `${c.schemaId}|${scope}`,
        a.answer,
        field,
        (first) => `differs from ${first}: "${c.schemaId}" is Class Level, one answer for every object of the class`,
      );
    }
    const allowed = c.associatedMarkingTool;
    if (object && allowed?.length && !allowed.includes(object.markingTool as never)) {
      errors.push({
        field,
        message: `"${c.schemaId}" answers objects drawn with ${allowed.join(', ')}, not ${String(object.markingTool)}`,
      });
    }
  };
  classifications.forEach((a, i) => check(a, `${base}.classifications[${i}]`));
  for (const { obj, field } of tools) {
    if (!Array.isArray(obj.classifications)) continue;
    obj.classifications.forEach((a, k) => {
      if (isRecord(a)) check(a, `${field}.classifications[${k}]`, obj);
    });
  }
}
