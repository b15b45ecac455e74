import { Type, type Static } from 'typebox';
import { Nullable, OptionalField, PaginationQuery } from './common.js';
import { Success } from './envelope.js';
import { Stage } from './stage.js';

/** Operations around Webhook stages: re-run, the delivery log, and the stage status. */

export const RerunWebhookRequest = Type.Object({
  stageId: OptionalField(
    Type.String({ minLength: 1, maxLength: 200, description: 'a Webhook stage; all when omitted' }),
  ),
});
export type RerunWebhookRequest = Static<typeof RerunWebhookRequest>;

export const RerunWebhookResponse = Success(
  Type.Object({
    webhook: Type.Object({
      stageIds: Type.Array(Type.String(), { description: 'the Webhook stages re-run' }),
      queued: Type.Integer({ description: 'deliveries queued' }),
      alreadyQueued: Type.Integer({ description: 'waiting tasks skipped: a delivery of theirs is still queued' }),
    }),
  }),
);

export const WebhookLogsQuery = Type.Intersect([
  PaginationQuery(100),
  Type.Object({ stageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
]);
export type WebhookLogsQuery = Static<typeof WebhookLogsQuery>;

export const WebhookLogEntry = Type.Object({
  _id: Type.String(),
  line: Type.String({ description: '[<ISO date>][<status or error>] <externalId>' }),
  date: Type.String({ format: 'date-time' }),
  status: Nullable(Type.Integer({ description: 'HTTP status of the answer' })),
  error: Nullable(Type.String({ description: 'why there was no (acceptable) answer' })),
  externalId: Type.String(),
  stageId: Type.String(),
  taskId: Type.String(),
  deliveryId: Type.String({ description: 'the X-Annotary-Delivery header of the request' }),
  attempt: Type.Integer({ minimum: 1 }),
});

export const WebhookLogsResponse = Success(
  Type.Object({ logs: Type.Array(WebhookLogEntry, { description: 'newest first' }), total: Type.Integer() }),
);

/** A problem a stage reports; `kind` says which part of the server raised it. */
export const StageWarning = Type.Object(
  {
    kind: Type.String({ description: 'webhook, plugin...' }),
    failedCount: Type.Optional(Type.Integer({ description: 'tasks waiting in the stage after a failure' })),
    lastError: Type.Optional(Type.String()),
    lastFailedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: true },
);

export const StageStatusResponse = Success(
  Type.Object({
    stages: Type.Array(
      Type.Intersect([
        Stage,
        Type.Object({
          taskCount: Type.Integer({ description: 'live tasks waiting in the stage' }),
          warnings: Type.Array(StageWarning),
        }),
      ]),
    ),
  }),
);
