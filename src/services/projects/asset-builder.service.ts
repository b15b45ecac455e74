import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { conflict, type FieldError, invalid } from '../../errors.js';
import { newId } from '../../ids.js';
import type { AssetBuilderTemplateRequest } from '../../schemas/asset-builder.js';
import type { Executor } from '../../store/db.js';
import type { Principal } from '../identity/access.js';
import { loadProject } from './project.service.js';
import { parseJson } from './project-view.js';

export type AssetBuilderTemplateInput = Static<typeof AssetBuilderTemplateRequest>;

/** `{{ column }}` in a template; inner spaces allowed. */
const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** The columns a template's placeholders name, in order of first use. */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

/** Every column the template and the template's settings name must be a column of data_config. */
function templateErrors(input: AssetBuilderTemplateInput): FieldError[] {
  const errors: FieldError[] = [];
  const columns = new Set(Object.keys(input.data_config));
  if (columns.size === 0) errors.push({ field: 'data_config', message: 'must describe at least one column' });
  if (!input.name.trim()) errors.push({ field: 'name', message: 'must not be blank' });
  const placeholders = placeholdersOf(input.template);
  if (placeholders.length === 0) {
    errors.push({ field: 'template', message: 'must hold at least one {{column}} placeholder' });
  }
  for (const column of placeholders) {
    if (!columns.has(column)) {
      errors.push({ field: 'template', message: `names the column "${column}", which data_config does not describe` });
    }
  }
  for (const field of ['external_id_column', 'batchColumn'] as const) {
    const column = input[field];
    if (column !== undefined && !columns.has(column)) {
      errors.push({ field, message: `must be a column of data_config ("${column}" is not)` });
    }
  }
  return errors;
}

/** The project's settings, read under a row lock on PostgreSQL so that two additions queue. */
async function lockedSettings(trx: Executor, engine: AppContext['store']['engine'], projectId: string) {
  const q = trx.selectFrom('projects').select('settings').where('id', '=', projectId);
  const row = await (engine === 'postgres' ? q.forUpdate() : q).executeTakeFirstOrThrow();
  return parseJson<Record<string, unknown>>(row.settings, {});
}

/**
 * POST /project/{id}/assetBuilderTemplates [client]: adds a template to the project's
 * `assetBuilderTemplates` (Manager). Names are unique in a project (409 on a clash).
 */
export async function addAssetBuilderTemplate(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: AssetBuilderTemplateInput,
) {
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, projectId, 'manage');
    const errors = templateErrors(input);
    if (errors.length) throw invalid(errors);
    const settings = await lockedSettings(trx, ctx.store.engine, row.id);
    const existing = Array.isArray(settings.assetBuilderTemplates)
      ? (settings.assetBuilderTemplates as Record<string, unknown>[])
      : [];
    const name = input.name.trim();
    if (existing.some((t) => t.name === name)) {
      throw conflict(`the project already has an asset builder template named "${name}"`, [
        { field: 'name', message: 'is already used by another template of the project' },
      ]);
    }
    const now = new Date(ctx.clock.now()).toISOString();
    const template = { _id: newId(ctx.clock.now()), ...input, name, createdBy: p.email, createdAt: now };
    const assetBuilderTemplates = [...existing, template];
    await trx
      .updateTable('projects')
      .set({ settings: JSON.stringify({ ...settings, assetBuilderTemplates }), updated_at: now })
      .where('id', '=', row.id)
      .execute();
    return { assetBuilderTemplate: template, assetBuilderTemplates };
  });
}
