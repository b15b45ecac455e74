import { Type, type TSchema } from 'typebox';
import { CATEGORY_SCHEMA_DEFS } from '../../schemas/category-schema.js';
import { FieldErrorSchema } from '../../schemas/common.js';
import { ErrorResponse } from '../../schemas/envelope.js';
import { ExportRecord } from '../../schemas/export.js';
import { Assignee, Batch, PctConfig, Project, ProjectListItem } from '../../schemas/project.js';
import * as resources from '../../schemas/resources.js';
import { Stage } from '../../schemas/stage.js';
import { Storage } from '../../schemas/storage.js';
import { WebhookPayload } from '../../schemas/webhook-payload.js';
import { StageWarning, WebhookLogEntry } from '../../schemas/webhook.js';
import { EXAMPLES } from './examples.js';

/** A reference to a named component (`{$ref: 'Project'}`, the document's `#/components/schemas/Project`). */
export const ref = (name: ComponentName) => Type.Ref(name);

const StageStatus = Type.Intersect([
  Type.Ref('Stage'),
  Type.Object({
    taskCount: Type.Integer({ description: 'live tasks waiting in the stage' }),
    warnings: Type.Array(StageWarning),
  }),
]);

/**
 * The named schemas of the document. Resources refer to each other by name so the document
 * (and a client generated from it) has one type per resource, not inlined copies.
 */
const SCHEMAS = {
  ErrorResponse: Type.Object({
    ...ErrorResponse.properties,
    errors: Type.Optional(Type.Array(Type.Ref('FieldError'))),
  }),
  FieldError: FieldErrorSchema,
  ...CATEGORY_SCHEMA_DEFS,
  Stage,
  StageStatus,
  Assignee,
  Batch,
  PctConfig,
  Project: Type.Object({
    ...Project.properties,
    categorySchema: Type.Ref('CategorySchema'),
    stages: Type.Array(Type.Ref('Stage')),
    assignedTo: Type.Array(Type.Ref('Assignee')),
    batches: Type.Array(Type.Ref('Batch')),
    pctConfig: Type.Optional(Type.Ref('PctConfig')),
  }),
  ProjectListItem,
  ExportRecord,
  Storage,
  Plugin: resources.Plugin,
  PluginLogEntry: resources.PluginLogEntry,
  TaskAnswer: resources.TaskAnswer,
  Task: resources.Task,
  TaskListItem: resources.TaskListItem,
  TaskHistoryEntry: resources.TaskHistoryEntry,
  Asset: resources.Asset,
  Issue: resources.Issue,
  IssueComment: resources.IssueComment,
  OrganizationUser: resources.OrganizationUser,
  Invite: resources.Invite,
  WebhookLogEntry,
  WebhookPayload: Type.Object({ ...WebhookPayload.properties, categorySchema: Type.Ref('CategorySchema') }),
} satisfies Record<string, TSchema>;

export type ComponentName = keyof typeof SCHEMAS;

/**
 * A schema as the document and the serializer see it: plain JSON, without `default`. Defaults
 * belong to requests; in a response schema fast-json-stringify would write them into answers
 * that never had the field.
 */
export function withoutDefaults<T>(schema: T): T {
  const strip = (node: unknown, underProperties: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => strip(n, false));
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'default' && !underProperties) continue;
      out[key] = strip(value, key === 'properties' && !underProperties);
    }
    return out;
  };
  return strip(JSON.parse(JSON.stringify(schema)), false) as T;
}

/** Every component with its `$id` (its name), ready for `app.addSchema`. */
export function componentSchemas(): Record<string, unknown>[] {
  return Object.entries(SCHEMAS).map(([name, schema]) => {
    const example = (EXAMPLES as Record<string, unknown>)[name];
    return { ...withoutDefaults(schema), $id: name, title: name, ...(example ? { examples: [example] } : {}) };
  });
}
