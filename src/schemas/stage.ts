import { Type, type Static } from 'typebox';
import { FreeObject, KEEP_UNKNOWN, OptionalField, StringEnum } from './common.js';

/**
 * Workflow stages of the contract. Shape only: the graph rules (one Start, existing `next` ids,
 * outputs per stage type, consensus sub-stages...) live in workflow/graph.ts. Unknown
 * properties are kept as sent. Static types describe the stored form (nulls removed).
 */

export const STAGE_TYPES = [
  'Label',
  'Review',
  'Logic',
  'Plugin',
  'Webhook',
  'Consensus',
  'Hold',
  'Start',
  'Complete',
  'Archive',
] as const;
export type StageType = (typeof STAGE_TYPES)[number];

export const LOGIC_TYPES = [
  'AnnotationType',
  'Annotator',
  'RandomSample',
  'Duration',
  'Batch',
  'IssueErrorCode',
] as const;
export type LogicType = (typeof LOGIC_TYPES)[number];

export const DURATION_OPERATORS = ['lt', 'gt', 'eq'] as const;
export const WEBHOOK_METHODS = ['POST', 'PUT'] as const;
export const WEBHOOK_AUTH_TYPES = ['no_auth', 'secret', 'bearer_token'] as const;
export const ADJUDICATION_METHODS = ['majority', 'union', 'intersection', 'first'] as const;

/** `exists___<schemaId>` or `not-exist___<schemaId>` (contract, LogicCondition). */
export const TOOL_FILTER_PATTERN = '^(?:exists|not-exist)___.+$';

/** Bounds we chose where the contract gives only a default (DECISIONS 5 keeps them sane). */
export const WEBHOOK_LIMITS = { timeoutMin: 1, timeoutMax: 600_000, retryMin: 0, retryMax: 10 } as const;
export const CONSENSUS_LIMITS = { minCopies: 2, maxCopies: 10, minSubStages: 2, maxSubStages: 10 } as const;

export const Position = Type.Object({ x: Type.Number(), y: Type.Number() }, KEEP_UNKNOWN);
export type Position = Static<typeof Position>;

export const LogicConditionValue = Type.Object(
  {
    tools: OptionalField(
      Type.Array(Type.Object({ filter: Type.Array(Type.String({ pattern: TOOL_FILTER_PATTERN })) }, KEEP_UNKNOWN)),
    ),
    emails: OptionalField(Type.Array(Type.String())),
    sampleRate: OptionalField(Type.Number({ minimum: 0, maximum: 1 })),
    duration: OptionalField(Type.Number({ minimum: 0, description: 'milliseconds' })),
    operator: OptionalField(StringEnum(DURATION_OPERATORS)),
    batches: OptionalField(Type.Array(Type.String(), { description: 'batch names or ids' })),
    errorCodes: OptionalField(Type.Array(Type.String())),
  },
  KEEP_UNKNOWN,
);
export type LogicConditionValue = Static<typeof LogicConditionValue>;

export const LogicCondition = Type.Object(
  {
    type: StringEnum(LOGIC_TYPES),
    index: Type.Number({ description: "index into the Logic stage's next array" }),
    value: OptionalField(LogicConditionValue),
  },
  KEEP_UNKNOWN,
);
export type LogicCondition = Static<typeof LogicCondition>;

export const LogicConfig = Type.Object(
  {
    type: OptionalField(StringEnum(LOGIC_TYPES)),
    value: OptionalField(FreeObject),
    conditions: OptionalField(Type.Array(LogicCondition, { default: [] })),
  },
  KEEP_UNKNOWN,
);
export type LogicConfig = Static<typeof LogicConfig>;

export const WebhookConfig = Type.Object(
  {
    url: Type.String({ format: 'uri' }),
    method: OptionalField(StringEnum(WEBHOOK_METHODS, { default: 'POST' })),
    authType: OptionalField(StringEnum(WEBHOOK_AUTH_TYPES, { default: 'no_auth' })),
    secret: OptionalField(
      Type.String({ description: 'HMAC secret when authType is secret; write-only (omit to keep the stored one)' }),
    ),
    token: OptionalField(
      Type.String({
        description: 'bearer token when authType is bearer_token; write-only (omit to keep the stored one)',
      }),
    ),
    hasSecret: OptionalField(Type.Boolean({ readOnly: true, description: 'answered: a secret is stored' })),
    hasToken: OptionalField(Type.Boolean({ readOnly: true, description: 'answered: a token is stored' })),
    timeout: OptionalField(
      Type.Integer({ minimum: WEBHOOK_LIMITS.timeoutMin, maximum: WEBHOOK_LIMITS.timeoutMax, default: 30_000 }),
    ),
    retryCount: OptionalField(
      Type.Integer({ minimum: WEBHOOK_LIMITS.retryMin, maximum: WEBHOOK_LIMITS.retryMax, default: 3 }),
    ),
  },
  KEEP_UNKNOWN,
);
export type WebhookConfig = Static<typeof WebhookConfig>;

export const ConsensusConfig = Type.Object(
  {
    version: OptionalField(Type.Unsafe<1 | 2>({ type: 'number', enum: [1, 2], default: 2 })),
    threshold: OptionalField(Type.Number({ minimum: 0, maximum: 1 })),
    adjudicationMethod: OptionalField(StringEnum(ADJUDICATION_METHODS, { default: 'majority' })),
    dynamicConsensus: OptionalField(Type.Boolean({ default: false })),
    minCopies: OptionalField(Type.Integer({ minimum: CONSENSUS_LIMITS.minCopies, default: 2 })),
    maxCopies: OptionalField(Type.Integer({ maximum: CONSENSUS_LIMITS.maxCopies, default: 5 })),
  },
  KEEP_UNKNOWN,
);
export type ConsensusConfig = Static<typeof ConsensusConfig>;

export const Stage = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: OptionalField(Type.String()),
    type: StringEnum(STAGE_TYPES),
    next: OptionalField(Type.Array(Type.String())),
    position: OptionalField(Position),
    assignedTo: OptionalField(Type.Array(Type.String())),
    rememberAssignee: OptionalField(Type.Boolean({ default: false })),
    logic: OptionalField(LogicConfig),
    pluginId: OptionalField(Type.String()),
    pluginConfig: OptionalField(FreeObject),
    webhook: OptionalField(WebhookConfig),
    consensusConfig: OptionalField(ConsensusConfig),
    readOnly: OptionalField(Type.Boolean({ default: false })),
    preventRequeue: OptionalField(Type.Boolean({ default: false })),
    autoForward: OptionalField(Type.Boolean({ default: true })),
    consensusId: OptionalField(Type.String()),
    consensusDynamic: OptionalField(Type.Boolean({ default: false })),
  },
  KEEP_UNKNOWN,
);
export type Stage = Static<typeof Stage>;

export const Stages = Type.Array(Stage);
