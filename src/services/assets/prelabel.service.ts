import type { AppContext } from '../../context.js';
import { AppError, invalid, invalidField, type FieldError } from '../../errors.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import { MAX_PRELABEL_ITEMS } from '../../schemas/prelabel.js';
import { chunked } from '../../store/chunks.js';
import type { Executor } from '../../store/db.js';
import * as assetRepo from '../../store/repositories/asset.repository.js';
import { liveTasksOf, writePreLabel } from '../../store/repositories/label-import.repository.js';
import { framesOfAsset, validateAnswer } from '../../workflow/answer.js';
import { startStage } from '../../workflow/graph.js';
import type { TaskAnswer } from '../../workflow/types.js';
import { audit } from '../audit/audit.service.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { projectInfo } from '../projects/project-view.js';
import { assetImageSize, checkBrushDataUrl } from '../files/layers/brush-layer.js';
import { assetVolumeSize, checkMedicalBrushDataUrl } from '../files/layers/medical-layer.js';

interface PreLabel {
  index: number;
  assetId?: string;
  externalId?: string;
  answer: TaskAnswer;
  /** The brush layer's link as sent ("" removes the task's layer); checked once assets are known. */
  brushDataUrl?: string;
  /** The voxel layer's link as sent, the same way. */
  medicalBrushDataUrl?: string;
}

export type SkipReason = 'not_found' | 'not_in_start' | 'consensus_copy' | 'duplicate' | 'page_outside';

export interface Skipped {
  index: number;
  assetId?: string;
  externalId?: string;
  reason: SkipReason;
  message: string;
}

type LayerField = 'brushDataUrl' | 'medicalBrushDataUrl';
const LAYER_FIELDS: readonly LayerField[] = ['brushDataUrl', 'medicalBrushDataUrl'];

const SHAPE = 'must be a JSON array of pre-labels, or a JSON string of one';

/** `jsonContent` as sent: an array, or a JSON string holding one. */
function itemsOf(jsonContent: string | unknown[]): unknown[] {
  if (Array.isArray(jsonContent)) return jsonContent;
  let parsed: unknown;
  try {
    parsed = JSON.parse(jsonContent);
  } catch {
    throw invalidField('jsonContent', SHAPE);
  }
  if (!Array.isArray(parsed)) throw invalidField('jsonContent', SHAPE);
  if (parsed.length > MAX_PRELABEL_ITEMS) {
    throw invalidField('jsonContent', `must hold at most ${MAX_PRELABEL_ITEMS} items`);
  }
  return parsed;
}

/** Checks every item against the ontology (as a save, not a submit); any error refuses all. */
function prepare(items: unknown[], schema: CategorySchema): PreLabel[] {
  const errors: FieldError[] = [];
  const out: PreLabel[] = [];
  for (const [index, raw] of items.entries()) {
    if (errors.length >= 50) break;
    const base = `jsonContent[${index}]`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      errors.push({ field: base, message: 'must be an object' });
      continue;
    }
    // A JSON string is not cleaned of nulls by the HTTP layer: null counts as absent here too.
    const item = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null)) as Record<string, unknown>;
    const ref: Pick<PreLabel, 'assetId' | 'externalId'> = {};
    for (const key of ['assetId', 'externalId'] as const) {
      const value = item[key];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !value) errors.push({ field: `${base}.${key}`, message: 'must be a string' });
      else ref[key] = value;
    }
    if (item.assetId === undefined && item.externalId === undefined) {
      errors.push({ field: `${base}.externalId`, message: 'externalId or assetId is required' });
    }
    const lists = ['objects', 'tools', 'classifications', 'relations'] as const;
    const bad = lists.filter((k) => item[k] !== undefined && !Array.isArray(item[k]));
    for (const k of bad) errors.push({ field: `${base}.${k}`, message: 'must be an array' });
    if (bad.length) continue;
    const answer = validateAnswer(
      {
        tools: item.tools as unknown[] | undefined,
        objects: item.objects as unknown[] | undefined,
        classifications: item.classifications as unknown[] | undefined,
        relations: item.relations as unknown[] | undefined,
      },
      schema,
      { submit: false },
      base,
    );
    errors.push(...answer.errors);
    const layers: Pick<PreLabel, LayerField> = {};
    for (const field of LAYER_FIELDS) {
      const link = item[field];
      if (link !== undefined && typeof link !== 'string')
        errors.push({ field: `${base}.${field}`, message: 'must be a string' });
      if (typeof link === 'string') layers[field] = link;
    }
    out.push({ index, ...ref, answer: answer.value, ...layers });
  }
  if (errors.length) throw invalid(errors.slice(0, 50));
  return out;
}

interface TaskRef {
  id: string;
  asset_id: string;
  stage_id: string;
  type: string;
  /** The asset's frame or page count, when its metadata declares one. */
  frames?: number;
}

/** Asset ids of the project by asset id and by external id; tasks of those assets, locked on PostgreSQL. */
async function resolve(trx: Executor, engine: string, projectId: string, labels: PreLabel[]) {
  const byId = new Set<string>();
  const byExternal = new Map<string, string>();
  const frames = new Map<string, number>();
  for (const part of chunked([...new Set(labels.flatMap((l) => (l.assetId ? [l.assetId] : [])))])) {
    for (const a of await assetRepo.liveAssetsBy(trx, projectId, 'id', part)) {
      byId.add(a.id);
      const n = framesOfAsset(a.metadata);
      if (n !== undefined) frames.set(a.id, n);
    }
  }
  for (const part of chunked([...new Set(labels.flatMap((l) => (l.externalId ? [l.externalId] : [])))])) {
    for (const a of await assetRepo.liveAssetsBy(trx, projectId, 'external_id', part)) {
      byExternal.set(a.external_id, a.id);
      const n = framesOfAsset(a.metadata);
      if (n !== undefined) frames.set(a.id, n);
    }
  }
  // By assetId first, then by externalId.
  const assetOf = (l: PreLabel) =>
    (l.assetId !== undefined && byId.has(l.assetId) ? l.assetId : undefined) ??
    (l.externalId !== undefined ? byExternal.get(l.externalId) : undefined);
  const tasks = new Map<string, TaskRef>();
  const assetIds = [...new Set(labels.flatMap((l) => assetOf(l) ?? []))];
  for (const part of chunked(assetIds)) {
    // Locked so that a concurrent forward cannot move a task out of Start under our write.
    for (const t of await liveTasksOf(trx, engine, projectId, part)) {
      const seen = tasks.get(t.asset_id);
      const n = frames.get(t.asset_id);
      if (!seen || (seen.type !== 'default' && t.type === 'default')) {
        tasks.set(t.asset_id, n === undefined ? t : { ...t, frames: n });
      }
    }
  }
  return (l: PreLabel) => {
    const assetId = assetOf(l);
    return assetId === undefined ? undefined : tasks.get(assetId);
  };
}

/**
 * Each item's `brushDataUrl` (or `medicalBrushDataUrl`) checked as POST /annotate checks it (a PNG
 * of its asset's size, or a `.seg.nrrd` of its volume's size, in our file store, or a link of ours
 * to a storage of the organization): the values to store, by item index. Any bad link refuses the
 * whole request, naming the item.
 */
async function checkBrushes(
  ctx: AppContext,
  trx: Executor,
  where: { projectId: string; orgId: string; bases: string[] | undefined },
  labels: PreLabel[],
  taskOf: (l: PreLabel) => TaskRef | undefined,
  kind: LayerField,
): Promise<Map<number, string | null>> {
  const out = new Map<number, string | null>();
  const sent = labels.filter((l) => l[kind] !== undefined);
  const sizes = new Map<string, string | null>();
  for (const part of chunked([...new Set(sent.flatMap((l) => taskOf(l)?.asset_id ?? []))])) {
    for (const a of await assetRepo.assetMetadata(trx, part)) {
      sizes.set(a.id, a.metadata);
    }
  }
  const errors: FieldError[] = [];
  for (const l of sent) {
    const link = l[kind] as string;
    if (link === '') {
      out.set(l.index, null);
      continue;
    }
    const assetId = taskOf(l)?.asset_id;
    const metadata = assetId === undefined ? null : (sizes.get(assetId) ?? null);
    const field = `jsonContent[${l.index}].${kind}`;
    const at = { projectId: where.projectId, orgId: where.orgId };
    try {
      const checked =
        kind === 'brushDataUrl'
          ? await checkBrushDataUrl(ctx, field, link, { ...at, image: assetImageSize(metadata) }, where.bases)
          : await checkMedicalBrushDataUrl(ctx, field, link, { ...at, volume: assetVolumeSize(metadata) }, where.bases);
      out.set(l.index, checked);
    } catch (err) {
      if (!(err instanceof AppError) || !err.errors) throw err;
      errors.push(...err.errors);
      if (errors.length >= 50) break;
    }
  }
  if (errors.length) throw invalid(errors);
  return out;
}

/**
 * The first entry of an answer whose `page` lies past its asset's last frame or page, said in
 * words; undefined when every entry fits (or the asset declares no count).
 */
function pageOutside(answer: TaskAnswer, frames: number | undefined): string | undefined {
  if (frames === undefined) return undefined;
  for (const list of ['tools', 'classifications'] as const) {
    for (const [i, entry] of answer[list].entries()) {
      const page = entry.page;
      if (typeof page === 'number' && page >= frames) {
        return `${list}[${i}].page is ${page}; the asset has ${frames} frames or pages (page counts from 0)`;
      }
    }
  }
  return undefined;
}

/**
 * POST /import/labels: writes each item's answer onto its asset's task while the task still
 * sits in the Start stage, and marks it pre-labeled; other items come back skipped with a
 * reason. When one asset appears more than once, the last item wins.
 */
export async function importLabels(
  ctx: AppContext,
  p: Principal,
  input: { project: string; jsonContent: string | unknown[] },
  /** The addresses a link of ours may start with (http/link-base.ts). */
  bases?: string[],
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, input.project, 'import');
    const info = projectInfo(row);
    const labels = prepare(itemsOf(input.jsonContent), info.categorySchema);
    const startId = startStage(info.stages)?.id;
    const taskOf = await resolve(trx, ctx.store.engine, row.id, labels);
    const where = { projectId: row.id, orgId: row.organization_id, bases };
    const brushes = await checkBrushes(ctx, trx, where, labels, taskOf, 'brushDataUrl');
    const volumes = await checkBrushes(ctx, trx, where, labels, taskOf, 'medicalBrushDataUrl');
    const skipped: Skipped[] = [];
    const skip = (l: PreLabel, reason: SkipReason, message: string) => {
      const { index, assetId, externalId } = l;
      skipped.push({
        index,
        ...(assetId !== undefined && { assetId }),
        ...(externalId !== undefined && { externalId }),
        reason,
        message,
      });
    };
    const written = new Set<string>();
    const now = new Date(ctx.clock.now()).toISOString();
    for (const l of [...labels].reverse()) {
      const task = taskOf(l);
      const outside = task && pageOutside(l.answer, task.frames);
      if (!task) skip(l, 'not_found', 'no asset with this assetId or externalId in the project');
      else if (task.type !== 'default') skip(l, 'consensus_copy', 'the task is a consensus copy');
      else if (task.stage_id !== startId)
        skip(l, 'not_in_start', `the task is in stage "${task.stage_id}", not in Start`);
      else if (written.has(task.id)) skip(l, 'duplicate', 'a later item of the request pre-labels the same asset');
      else if (outside) skip(l, 'page_outside', outside);
      else {
        written.add(task.id);
        const brush = brushes.has(l.index) ? { brush_data_url: brushes.get(l.index) ?? null } : {};
        const volume = volumes.has(l.index) ? { medical_brush_data_url: volumes.get(l.index) ?? null } : {};
        const layers = { ...brush, ...volume };
        await writePreLabel(trx, task.id, JSON.stringify(l.answer), layers, now, p.email);
      }
    }
    skipped.sort((a, b) => a.index - b.index);
    if (written.size > 0) {
      await audit(trx, ctx.clock, p, {
        operation: 'labels.import',
        targetType: 'project',
        targetId: row.id,
        projectId: row.id,
        fields: ['answer'],
      });
    }
    return { imported: written.size, skipped };
  });
}
