import { audit } from '../audit/audit.service.js';
import { sealPctSecret } from './pct-validation-secret.js';
import type { AppContext } from '../../context.js';
import { badRequest, invalid, invalidField, type FieldError } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/project.repository.js';
import { forgetMeasurements } from '../../store/repositories/benchmark-queue.repository.js';
import type { ProjectPatch, ProjectRow } from '../../store/schema.js';
import { facetCountsOfProjects } from '../../store/repositories/task-facet.repository.js';
import { DEFAULT_WORKFLOW, validateWorkflow } from '../../workflow/graph.js';
import { assertStagesRemovable } from '../../workflow/stage-usage.js';
import { can, effectiveRole, type Principal, type ProjectRole } from '../../access.js';
import { loadProject, visibleProject } from '../identity/project-access.js';
import { type BatchInput, listBatchViews, upsertBatches } from './batches.js';
import { normalizePctConfig, validateCategorySchema } from './ontology.js';
import { projectListItem, projectView, SETTING_KEYS } from './project-view.js';
import { parseJson } from '../../stored-json.js';
import { unknownPluginErrors } from './plugin-references.js';
import { unknownStorageErrors } from '../storages/storage-references.js';
import { keepStoredCredentials, sealCredentials } from './webhook-credentials.js';

/** The likelihood of a benchmark when benchmarking is first turned on without one. */
const FIRST_BENCHMARK_RATIO = 0.1;

async function fullView(db: Executor, row: ProjectRow, role?: ProjectRole) {
  const [members, batches] = await Promise.all([repo.listMembers(db, row.id), listBatchViews(db, row.id)]);
  return projectView(row, { members, batches, role });
}

export const PROJECT_SORT = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' } as const;

export async function listProjects(
  ctx: AppContext,
  p: Principal,
  q: {
    page: number;
    limit: number;
    sort: string;
    name?: string | undefined;
    archived?: boolean | undefined;
    counts?: boolean;
  },
) {
  const descending = q.sort.startsWith('-');
  const key = (descending ? q.sort.slice(1) : q.sort) as keyof typeof PROJECT_SORT;
  const sort = PROJECT_SORT[key];
  if (!sort) throw invalidField('sort', `must be one of ${Object.keys(PROJECT_SORT).join(', ')}, optionally with -`);
  const { rows, total } = await repo.listProjects(ctx.store.db, {
    orgId: p.orgId,
    memberEmail: p.orgRole === 'member' ? p.email : undefined,
    offset: (q.page - 1) * q.limit,
    limit: q.limit,
    sort,
    descending,
    name: q.name,
    archived: q.archived,
  });
  if (!q.counts) return { projects: rows.map(projectListItem), total };
  return { projects: await withProgress(ctx.store.db, p, rows), total };
}

/**
 * List items with the caller's `role` and, where that role may read every task, the project's
 * live task counts (`progress`), read from the counts the database keeps (task_facets): one
 * grouped query for the page, whatever the projects hold.
 */
async function withProgress(db: Executor, p: Principal, rows: ProjectRow[]) {
  const ids = rows.map((r) => r.id);
  const [roles, counts] = await Promise.all([repo.memberRolesOf(db, ids, p.email), facetCountsOfProjects(db, ids)]);
  return rows.map((row) => {
    const role = effectiveRole(p, row.organization_id, roles.get(row.id));
    const c = counts.get(row.id) ?? {};
    const total = Object.values(c).reduce((n, v) => n + v, 0);
    return {
      ...projectListItem(row),
      ...(role ? { role } : {}),
      ...(role && can(role, 'readAll')
        ? { progress: { tasks: total, completed: c.Completed ?? 0, archived: c.Archived ?? 0 } }
        : {}),
    };
  });
}

export async function getProject(ctx: AppContext, p: Principal, projectId: string) {
  const { engine, db } = ctx.store;
  const found = isId(projectId) ? await repo.findProjectForReader(db, engine, projectId, p.email) : undefined;
  const { row, members, batches, role } = visibleProject(p, found, 'read');
  return projectView(row, { members, batches: batches.map((b) => ({ _id: b.id, name: b.name })), role });
}

export interface ProjectCreateInput {
  name: string;
  description?: string | undefined;
  type?: string | undefined;
  pctConfig?: unknown;
}

export async function createProject(ctx: AppContext, p: Principal, input: ProjectCreateInput) {
  const type = input.type === undefined || input.type === 'ango' ? 'standard' : input.type;
  if (input.pctConfig !== undefined && type !== 'pct') {
    throw invalidField('pctConfig', 'is only allowed on projects of type pct');
  }
  const name = input.name.trim();
  if (!name) throw invalidField('name', 'must not be blank');
  const pct = type === 'pct' ? normalizePctConfig(input.pctConfig ?? {}) : undefined;
  if (pct && pct.errors.length) throw invalid(pct.errors);
  const now = ctx.clock.now();
  const iso = new Date(now).toISOString();
  const id = newId(now);
  const row: ProjectRow = {
    id,
    organization_id: p.orgId,
    name,
    description: input.description ?? '',
    type,
    owner_email: p.email,
    category_schema: JSON.stringify({ tools: [], classifications: [], relations: [] }),
    stages: JSON.stringify(DEFAULT_WORKFLOW),
    settings: '{}',
    pct_config: pct ? JSON.stringify(sealPctSecret(pct.value, null, ctx.secretKey, id)) : null,
    queue_version: 0,
    asset_count: 0,
    deleted: 0,
    archived_at: null,
    created_at: iso,
    updated_at: iso,
  };
  await ctx.store.db.transaction().execute(async (trx) => {
    await repo.insertProject(trx, row);
    await repo.upsertMembers(trx, row.id, [{ email: p.email, role: 'Manager' }], iso);
    const fields = Object.keys(input).filter((k) => input[k as keyof ProjectCreateInput] !== undefined);
    await audit(trx, ctx.clock, p, {
      operation: 'project.create',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
      fields,
    });
  });
  return fullView(ctx.store.db, row, 'Manager');
}

export type ProjectUpdateInput = Record<string, unknown> & {
  name?: string;
  description?: string;
  categorySchema?: unknown;
  stages?: unknown[];
  batches?: BatchInput[];
  pctConfig?: unknown;
  deleted?: boolean;
  archived?: boolean;
};

const UPDATE_FIELDS = new Set<string>([
  'name',
  'description',
  'categorySchema',
  'stages',
  'batches',
  'pctConfig',
  'deleted',
  'archived',
  ...SETTING_KEYS,
]);

export async function updateProject(ctx: AppContext, p: Principal, projectId: string, input: ProjectUpdateInput) {
  const given = Object.keys(input).filter((k) => UPDATE_FIELDS.has(k));
  if (given.length === 0) {
    throw badRequest(`the body must hold at least one of ${[...UPDATE_FIELDS].join(', ')}`);
  }
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row, role } = await loadProject(trx, p, projectId, 'manage');
    const patch: ProjectPatch = {};
    const errors: FieldError[] = [];
    if (input.name !== undefined) {
      if (!input.name.trim()) errors.push({ field: 'name', message: 'must not be blank' });
      patch.name = input.name.trim();
    }
    if (input.description !== undefined) patch.description = input.description;
    if (input.categorySchema !== undefined) {
      const checked = validateCategorySchema(input.categorySchema, row.type);
      errors.push(...checked.errors);
      patch.category_schema = JSON.stringify(checked.value);
    }
    if (input.stages !== undefined) {
      const checked = validateWorkflow(keepStoredCredentials(input.stages, parseJson<Stage[]>(row.stages, [])));
      errors.push(...checked.errors);
      errors.push(...(await unknownPluginErrors(trx, row.organization_id, checked.value)));
      patch.stages = JSON.stringify(sealCredentials(checked.value, ctx.secretKey, row.id));
      patch.queue_version = row.queue_version + 1;
    }
    if (input.pctConfig !== undefined) {
      if (row.type !== 'pct') errors.push({ field: 'pctConfig', message: 'is only allowed on projects of type pct' });
      else {
        const checked = normalizePctConfig(input.pctConfig);
        errors.push(...checked.errors);
        patch.pct_config = JSON.stringify(sealPctSecret(checked.value, row.pct_config, ctx.secretKey, row.id));
      }
    }
    const settingsPatch = Object.fromEntries(
      SETTING_KEYS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]),
    );
    // '' (or blanks) clears the export storage; any other value must name a storage of ours.
    const exportStorageId = typeof input.exportStorageId === 'string' ? input.exportStorageId.trim() : '';
    if (exportStorageId) {
      const refs = [{ field: 'exportStorageId', id: exportStorageId }];
      errors.push(...(await unknownStorageErrors(trx, row.organization_id, refs)));
    }
    const stored = parseJson<Record<string, unknown>>(row.settings, {});
    // Benchmarking turned on for the first time, with no likelihood ever set: 10 %, as the original.
    if (input.benchmarkEnabled === true && stored.benchmarkRatio === undefined && input.benchmarkRatio === undefined) {
      settingsPatch.benchmarkRatio = FIRST_BENCHMARK_RATIO;
    }
    if (Object.keys(settingsPatch).length) {
      patch.settings = JSON.stringify({ ...stored, ...settingsPatch });
    }
    if (errors.length) throw invalid(errors);
    if (patch.stages !== undefined) {
      await assertStagesRemovable(trx, row.id, parseJson(row.stages, []), parseJson(patch.stages, []));
    }
    if (input.batches !== undefined) await upsertBatches(trx, ctx.clock, row.id, input.batches);
    if (input.deleted !== undefined) patch.deleted = input.deleted ? 1 : 0;
    patch.updated_at = new Date(ctx.clock.now()).toISOString();
    // Archiving again keeps the first date.
    if (input.archived !== undefined) patch.archived_at = input.archived ? (row.archived_at ?? patch.updated_at) : null;
    await repo.updateProject(trx, row.id, patch);
    // Turning benchmarking off forgets what it measured (a ratio of 0 pauses it instead).
    if (input.benchmarkEnabled === false && stored.benchmarkEnabled === true) {
      await forgetMeasurements(trx, row.id);
    }
    await audit(trx, ctx.clock, p, {
      operation: 'project.update',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
      fields: given,
    });
    const updated: ProjectRow = { ...row, ...patch } as ProjectRow;
    return fullView(trx, updated, role);
  });
}

export async function deleteProject(ctx: AppContext, p: Principal, projectId: string) {
  const row = await ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'manage');
    await repo.updateProject(trx, row.id, { deleted: 1, updated_at: new Date(ctx.clock.now()).toISOString() });
    await audit(trx, ctx.clock, p, {
      operation: 'project.delete',
      targetType: 'project',
      targetId: row.id,
      projectId: row.id,
    });
    return row;
  });
  return { project: { _id: row.id, name: row.name, deleted: true } };
}
