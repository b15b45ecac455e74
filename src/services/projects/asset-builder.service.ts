import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { conflict, type FieldError, invalid } from '../../errors.js';
import { newId } from '../../ids.js';
import { type AssetBuilderTemplateRequest, COLUMN_TYPES, MEDIA_COLUMN_TYPES } from '../../schemas/asset-builder.js';
import { lockSettings, updateProject } from '../../store/repositories/project.repository.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { projectInfo } from './project-view.js';
import { parseJson } from '../../stored-json.js';

export type AssetBuilderTemplateInput = Static<typeof AssetBuilderTemplateRequest>;

/** `{{ column }}` in a template; inner spaces allowed. */
const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** The columns a template's placeholders name, in order of first use. */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

interface ColumnConfig {
  type: string;
  storage?: string;
  includeInExport: boolean;
  [key: string]: unknown;
}

/** A template as stored and answered: the camelCase keys the client reads back [client]. */
export interface StoredTemplate {
  name: string;
  description: string;
  template: string;
  batchColumn: string;
  selectedExternalId: string;
  dataConfig: Record<string, ColumnConfig>;
  preLabelConfig: Record<string, unknown>;
}

/** Which shape the request used: the names its errors speak of. */
function fieldNames(input: AssetBuilderTemplateInput) {
  const snake = input.dataConfig === undefined && input.data_config !== undefined;
  return {
    snake,
    columns: snake ? 'data_config' : 'dataConfig',
    externalId:
      input.selectedExternalId === undefined && input.external_id_column !== undefined
        ? 'external_id_column'
        : 'selectedExternalId',
  };
}

/** The request in the stored shape, camelCase or snake_case alike. */
function normalised(input: AssetBuilderTemplateInput): StoredTemplate {
  const columns = input.dataConfig ?? input.data_config ?? {};
  const dataConfig: Record<string, ColumnConfig> = {};
  for (const [column, config] of Object.entries(columns)) {
    const { include_in_export, includeInExport, ...rest } = config;
    dataConfig[column] = { ...rest, includeInExport: includeInExport ?? include_in_export ?? false };
  }
  return {
    name: input.name.trim(),
    description: input.description ?? '',
    template: input.template,
    batchColumn: input.batchColumn ?? '',
    selectedExternalId: input.selectedExternalId ?? input.external_id_column ?? '',
    dataConfig,
    preLabelConfig: input.preLabelConfig ?? input.pre_label_config ?? {},
  };
}

/**
 * Every column the template's settings name must be a column of dataConfig; placeholders name a
 * column or (as the client fills them) a classification's title. Column kinds are checked in
 * the client's camelCase shape; the snake_case shape keeps the free kinds it always took.
 */
function templateErrors(
  input: AssetBuilderTemplateInput,
  template: StoredTemplate,
  classificationTitles: Set<string>,
): FieldError[] {
  const names = fieldNames(input);
  const errors: FieldError[] = [];
  const columns = new Set(Object.keys(template.dataConfig));
  if (columns.size === 0) errors.push({ field: names.columns, message: 'must describe at least one column' });
  if (!template.name) errors.push({ field: 'name', message: 'must not be blank' });
  for (const column of placeholdersOf(template.template)) {
    if (!columns.has(column) && !classificationTitles.has(column)) {
      errors.push({
        field: 'template',
        message: `names "${column}", which is neither a column of ${names.columns} nor a classification of the ontology`,
      });
    }
  }
  if (!template.selectedExternalId) errors.push({ field: names.externalId, message: 'must name a column' });
  const named = [
    [names.externalId, template.selectedExternalId],
    ['batchColumn', template.batchColumn],
  ] as const;
  for (const [field, column] of named) {
    if (column && !columns.has(column)) {
      errors.push({ field, message: `must be a column of ${names.columns} ("${column}" is not)` });
    }
  }
  if (names.snake) return errors;
  for (const [column, config] of Object.entries(template.dataConfig)) {
    const field = `dataConfig.${column}`;
    if (!(COLUMN_TYPES as readonly string[]).includes(config.type)) {
      errors.push({ field: `${field}.type`, message: `must be one of ${COLUMN_TYPES.join(', ')}` });
    } else if (MEDIA_COLUMN_TYPES.includes(config.type) && !config.storage) {
      errors.push({ field: `${field}.storage`, message: `is required for ${config.type} columns` });
    }
  }
  return errors;
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
    const stored = normalised(input);
    const titles = new Set(projectInfo(row).categorySchema.classifications?.map((c) => c.title) ?? []);
    const errors = templateErrors(input, stored, titles);
    if (errors.length) throw invalid(errors);
    // Read under a row lock on PostgreSQL so that two additions queue.
    const settings = parseJson<Record<string, unknown>>(await lockSettings(trx, ctx.store.engine, row.id), {});
    const existing = Array.isArray(settings.assetBuilderTemplates)
      ? (settings.assetBuilderTemplates as Record<string, unknown>[])
      : [];
    const name = stored.name;
    if (existing.some((t) => t.name === name)) {
      throw conflict(`the project already has an asset builder template named "${name}"`, [
        { field: 'name', message: 'is already used by another template of the project' },
      ]);
    }
    const now = new Date(ctx.clock.now()).toISOString();
    const template = { _id: newId(ctx.clock.now()), ...stored, createdBy: p.email, createdAt: now };
    const assetBuilderTemplates = [...existing, template];
    await updateProject(trx, row.id, {
      settings: JSON.stringify({ ...settings, assetBuilderTemplates }),
      updated_at: now,
    });
    return { assetBuilderTemplate: template, assetBuilderTemplates };
  });
}
