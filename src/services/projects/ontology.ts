import type { FieldError } from '../../errors.js';
import { KNOWN_FIELDS, type CategorySchema } from '../../schemas/category-schema.js';
import type { PctConfig } from '../../schemas/project.js';

/**
 * The ontology rules JSON Schema cannot express, run after the TypeBox shape check: schemaIds
 * unique across the whole schema, fields and kinds that depend on the project type, and the
 * stored form (nulls dropped, pct sizes as strings, boolean defaults filled). Inputs are typed
 * `unknown` because callers outside HTTP (CLI import) may skip the shape check.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const PCT_ONLY = {
  tool: [
    ...['exportName', 'displayName', 'abbreviatedName', 'markingTools', 'truncate', 'presetCuboidDimensions'],
    ...[
      'keypointWithVerticalLine',
      'hasInstance',
      'cuboidLength',
      'cuboidWidth',
      'cuboidHeight',
      'edgeLengthConstraint',
    ],
  ],
  classification: [
    ...['parentToolType', 'parentToolId', 'exportName', 'displayName', 'abbreviatedName'],
    ...['attributeLevel', 'attributeMode', 'associatedMarkingTool'],
  ],
  relation: ['parentTool', 'childTools'],
} as const;

const FALSE_BY_DEFAULT = {
  tool: ['required', 'multiple'],
  pctTool: ['truncate', 'presetCuboidDimensions', 'keypointWithVerticalLine', 'hasInstance'],
  classification: ['required', 'columnField', 'frameSpecific', 'showDropdown', 'richText', 'multiple'],
  relation: ['required', 'multiple'],
} as const;

const PCT_SIZES = ['cuboidLength', 'cuboidWidth', 'cuboidHeight', 'edgeLengthConstraint'] as const;
/** The contract types these as "string or null": null is a value there, not absence. */
const NULL_IS_VALUE = new Set(['regex', 'parentOptionId']);
const STANDARD_RELATIONS = new Set(['one-to-one', 'group']);

/** The voxel value a medical-brush schemaId stands for, or undefined when it is not one. */
export function classNumber(schemaId: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(schemaId)) return undefined;
  const n = Number(schemaId);
  return n <= 65535 ? n : undefined;
}

class OntologyWalker {
  readonly errors: FieldError[] = [];
  private readonly firstUse = new Map<string, string>();
  private readonly toolIds = new Set<string>();

  constructor(private readonly pct: boolean) {}

  root(input: unknown, path: string): Rec {
    const out = this.copy(input, KNOWN_FIELDS.categorySchema, path);
    out['tools'] = this.list(out['tools'], `${path}.tools`, (t, p) => this.tool(t, p));
    out['classifications'] = this.list(out['classifications'], `${path}.classifications`, (c, p) =>
      this.classification(c, p),
    );
    out['relations'] = this.list(out['relations'], `${path}.relations`, (r, p) => this.relation(r, p));
    return out;
  }

  private tool(input: unknown, path: string): Rec {
    const out = this.copy(input, KNOWN_FIELDS.tool, path);
    this.claim(out['schemaId'], path);
    if (typeof out['schemaId'] === 'string') this.toolIds.add(out['schemaId']);
    if (out['tool'] === 'pct' && !this.pct) this.fail(`${path}.tool`, 'the pct tool is only allowed on pct projects');
    // A medical-brush class is the number its voxels hold in the task's `.seg.nrrd`.
    if (out['tool'] === 'medical-brush' && typeof out['schemaId'] === 'string' && !classNumber(out['schemaId'])) {
      this.fail(`${path}.schemaId`, 'of a medical-brush tool must be a whole number from 1 to 65535 (its voxel value)');
    }
    this.refuseOutsidePct(out, PCT_ONLY.tool, path);
    this.fillFalse(out, this.pct ? [...FALSE_BY_DEFAULT.tool, ...FALSE_BY_DEFAULT.pctTool] : FALSE_BY_DEFAULT.tool);
    // The contract stores pct sizes as strings; clients send numbers too.
    for (const key of PCT_SIZES) if (typeof out[key] === 'number') out[key] = String(out[key]);
    this.nested(out, path);
    return out;
  }

  private classification(input: unknown, path: string): Rec {
    const out = this.copy(input, KNOWN_FIELDS.classification, path);
    this.claim(out['schemaId'], path);
    this.refuseOutsidePct(out, PCT_ONLY.classification, path);
    this.fillFalse(out, FALSE_BY_DEFAULT.classification);
    if (out['options'] !== undefined) {
      out['options'] = this.list(out['options'], `${path}.options`, (o, p) => this.option(o, p));
    }
    this.nested(out, path);
    return out;
  }

  private option(input: unknown, path: string): Rec {
    const out = this.copy(input, KNOWN_FIELDS.option, path);
    this.claim(out['schemaId'], path);
    if (out['children'] !== undefined) {
      out['children'] = this.list(out['children'], `${path}.children`, (c, p) => this.classification(c, p));
    }
    return out;
  }

  private relation(input: unknown, path: string): Rec {
    const out = this.copy(input, KNOWN_FIELDS.relation, path);
    this.claim(out['schemaId'], path);
    const kind = out['tool'];
    if (typeof kind === 'string' && STANDARD_RELATIONS.has(kind) && this.pct) {
      this.fail(`${path}.tool`, `'${kind}' relations are only allowed on standard projects`);
    }
    if (kind === 'one-to-many' && !this.pct) {
      this.fail(`${path}.tool`, "'one-to-many' relations are only allowed on pct projects");
    }
    this.refuseOutsidePct(out, PCT_ONLY.relation, path);
    if (kind === 'one-to-many' && this.pct) this.checkOneToMany(out, path);
    this.fillFalse(out, FALSE_BY_DEFAULT.relation);
    out['classifications'] = this.list(out['classifications'], `${path}.classifications`, (c, p) =>
      this.classification(c, p),
    );
    return out;
  }

  private checkOneToMany(out: Rec, path: string): void {
    const parent = out['parentTool'];
    if (typeof parent !== 'string') this.fail(`${path}.parentTool`, 'is required on a one-to-many relation');
    else if (!this.toolIds.has(parent)) this.fail(`${path}.parentTool`, `no tool has schemaId '${parent}'`);
    const children = out['childTools'];
    if (!Array.isArray(children) || children.length === 0) {
      this.fail(`${path}.childTools`, 'must name at least one tool on a one-to-many relation');
      return;
    }
    children.forEach((child, i) => {
      if (typeof child !== 'string' || !this.toolIds.has(child)) {
        this.fail(`${path}.childTools[${i}]`, `no tool has schemaId '${String(child)}'`);
      }
    });
  }

  private nested(out: Rec, path: string): void {
    if (out['classifications'] === undefined) return;
    out['classifications'] = this.list(out['classifications'], `${path}.classifications`, (c, p) =>
      this.classification(c, p),
    );
  }

  /** A shallow copy without null-valued known fields; unknown properties stay as sent. */
  private copy(input: unknown, known: readonly string[], path: string): Rec {
    if (!isRec(input)) {
      this.fail(path, 'must be an object');
      return {};
    }
    const out: Rec = { ...input };
    for (const key of known) if (out[key] === null && !NULL_IS_VALUE.has(key)) delete out[key];
    return out;
  }

  private list(value: unknown, path: string, each: (item: unknown, path: string) => Rec): Rec[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(path, 'must be an array');
      return [];
    }
    return value.map((item, i) => each(item, `${path}[${i}]`));
  }

  /** The second occurrence of a schemaId is the error; the first keeps its place. */
  private claim(schemaId: unknown, path: string): void {
    if (typeof schemaId !== 'string') return;
    const first = this.firstUse.get(schemaId);
    if (first === undefined) this.firstUse.set(schemaId, `${path}.schemaId`);
    else this.fail(`${path}.schemaId`, `duplicate schemaId '${schemaId}' (first used at ${first})`);
  }

  private refuseOutsidePct(out: Rec, fields: readonly string[], path: string): void {
    if (this.pct) return;
    for (const key of fields) {
      if (out[key] !== undefined) this.fail(`${path}.${key}`, 'is only allowed on pct projects');
    }
  }

  private fillFalse(out: Rec, fields: readonly string[]): void {
    for (const key of fields) if (out[key] === undefined) out[key] = false;
  }

  private fail(field: string, message: string): void {
    this.errors.push({ field, message });
  }
}

/**
 * Checks an ontology (already shape-checked) against the rules of its project type and returns
 * the form to store. `value` is meaningful only when `errors` is empty.
 */
export function validateCategorySchema(
  input: unknown,
  projectType: string,
  basePath = 'categorySchema',
): { value: CategorySchema; errors: FieldError[] } {
  const walker = new OntologyWalker(projectType === 'pct');
  const value = walker.root(input, basePath);
  return { value: value as CategorySchema, errors: walker.errors };
}

const FRAME_NUMBERS = 'externalValidation.frameNumbers';

/** `frameNumbers`: an integer or null; numeric strings are coerced, "" counts as null. */
function coerceFrameNumbers(raw: unknown, field: string, errors: FieldError[]): number | null {
  if (raw === undefined || raw === null) return null;
  const text = typeof raw === 'string' ? raw.trim() : undefined;
  if (text === '') return null;
  const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : raw;
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n;
  errors.push({ field, message: 'must be a non-negative integer, a string of digits, or null' });
  return null;
}

/** Fills the contract's pctConfig defaults and coerces `frameNumbers`; unknown fields are kept. */
export function normalizePctConfig(input: unknown, basePath = 'pctConfig'): { value: PctConfig; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const cfg = withoutNulls(input);
  const ext = withoutNulls(cfg['externalValidation']);
  const seg = withoutNulls(cfg['segmentationValidation']);
  checkValidator(ext, `${basePath}.externalValidation`, errors);
  const value = {
    ...cfg,
    allowOverlapping: cfg['allowOverlapping'] ?? false,
    trackingMultipleSensors: cfg['trackingMultipleSensors'] ?? false,
    segmentationMode: cfg['segmentationMode'] ?? false,
    externalValidation: {
      ...ext,
      enabled: ext['enabled'] ?? false,
      apiUrl: typeof ext['apiUrl'] === 'string' ? ext['apiUrl'].trim() : '',
      singleFrame: ext['singleFrame'] ?? false,
      specificFrame: ext['specificFrame'] ?? false,
      frameNumbers: coerceFrameNumbers(ext['frameNumbers'], `${basePath}.${FRAME_NUMBERS}`, errors),
    },
    segmentationValidation: {
      ...seg,
      enabled: seg['enabled'] ?? false,
      completeCoverage: seg['completeCoverage'] ?? 100,
    },
  };
  return { value: value as PctConfig, errors };
}

/** The validator's address is an http(s) URL (its host is judged when a call resolves it); a secret is text. */
function checkValidator(ext: Rec, field: string, errors: FieldError[]) {
  const url = ext['apiUrl'];
  if (url !== undefined && typeof url !== 'string')
    errors.push({ field: `${field}.apiUrl`, message: 'must be a string' });
  if (typeof url === 'string' && url.trim() !== '') {
    const parsed = URL.canParse(url.trim()) ? new URL(url.trim()) : undefined;
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
      errors.push({ field: `${field}.apiUrl`, message: 'must be an http(s) URL' });
    }
  }
  if (ext['secret'] !== undefined && typeof ext['secret'] !== 'string') {
    errors.push({ field: `${field}.secret`, message: 'must be a string' });
  }
}

function withoutNulls(input: unknown): Rec {
  if (!isRec(input)) return {};
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null));
}
