import { Type, type Static } from 'typebox';
import { FreeObject, PaginationQuery, SortQuery } from './common.js';
import { Answer } from './task.js';

/** Plugins of an organization and the endpoints a plugin calls back (DECISIONS 4, docs/workflow.md). */

export const PluginCreateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL the calls are POSTed to' }),
  secret: Type.String({
    minLength: 1,
    maxLength: 1024,
    writeOnly: true,
    description: 'sent as the Secret header of every call; stored encrypted, never returned',
  }),
  assistUrl: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        "http(s) URL the editor's Assist requests are POSTed to (through the server): the plugin answers interactive segmentation",
    }),
  ),
});
export type PluginCreateRequest = Static<typeof PluginCreateRequest>;

export const PluginIdParams = Type.Object({ pluginId: Type.String({ maxLength: 64 }) });
export const ListPluginsQuery = PaginationQuery(100);

/** A session id as sent to the plugin (24 hex characters, but any unknown value is a 404). */
const Session = Type.String({ minLength: 1, maxLength: 64, description: 'the session of the call' });

export const PluginResponseRequest = Type.Object({
  session: Session,
  response: Type.Optional(
    Type.Object(
      { ...Answer.properties, answer: Type.Optional(Answer) },
      { description: 'the answer {tools|objects, classifications, relations}, or {answer: {...}}' },
    ),
  ),
  error: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ maxLength: 2000 })], {
      description: 'true (or a message) when the plugin could not process the task',
    }),
  ),
  message: Type.Optional(Type.String({ maxLength: 2000, description: 'with error: what went wrong' })),
  duration: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 * 1000 })),
});
export type PluginResponseRequest = Static<typeof PluginResponseRequest>;

export const MAX_LOG_LINE = 10_000;
export const PluginLogRequest = Type.Object({
  session: Session,
  logs: Type.Optional(
    Type.Array(Type.Union([Type.String({ maxLength: MAX_LOG_LINE }), FreeObject]), { maxItems: 1000 }),
  ),
  message: Type.Optional(Type.String({ maxLength: MAX_LOG_LINE })),
});
export type PluginLogRequest = Static<typeof PluginLogRequest>;

export const PluginLogQuery = Type.Intersect([
  PaginationQuery(100),
  Type.Object({
    session: Type.Optional(Type.String({ maxLength: 64 })),
    project: Type.Optional(Type.String({ maxLength: 64 })),
    stageId: Type.Optional(Type.String({ maxLength: 200 })),
    taskId: Type.Optional(Type.String({ maxLength: 64 })),
    sort: Type.Optional(SortQuery(['createdAt'] as const, 'createdAt')),
  }),
]);
export type PluginLogQuery = Static<typeof PluginLogQuery>;

export const RerunPluginRequest = Type.Object({
  stageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
