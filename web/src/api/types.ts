import { type ContractLogicType, type ContractProjectRole, type ContractStageType, covers } from './contract';

/** The shapes the console reads and writes (the API contract's Project, Stage and friends). */

export const STAGE_TYPES = covers<ContractStageType>()([
  'Start',
  'Label',
  'Review',
  'Logic',
  'Plugin',
  'Webhook',
  'Consensus',
  'Hold',
  'Complete',
  'Archive',
] as const);
export type StageType = (typeof STAGE_TYPES)[number];

export const LOGIC_TYPES = covers<ContractLogicType>()([
  'AnnotationType',
  'Annotator',
  'RandomSample',
  'Duration',
  'Batch',
  'IssueErrorCode',
] as const);
export type LogicType = (typeof LOGIC_TYPES)[number];

export interface LogicConditionValue {
  tools?: { filter: string[] }[];
  emails?: string[];
  sampleRate?: number;
  duration?: number;
  operator?: 'lt' | 'gt' | 'eq';
  batches?: string[];
  errorCodes?: string[];
}

export interface LogicCondition {
  type: LogicType;
  index: number;
  value?: LogicConditionValue;
}

export interface WebhookConfig {
  url: string;
  method?: 'POST' | 'PUT';
  authType?: 'no_auth' | 'secret' | 'bearer_token';
  secret?: string;
  token?: string;
  timeout?: number;
  retryCount?: number;
}

export interface ConsensusConfig {
  version?: 1 | 2;
  threshold?: number;
  adjudicationMethod?: 'majority' | 'union' | 'intersection' | 'first';
  dynamicConsensus?: boolean;
  minCopies?: number;
  maxCopies?: number;
}

export interface Stage {
  id: string;
  name?: string;
  type: StageType;
  next?: string[];
  position?: { x: number; y: number };
  assignedTo?: string[];
  rememberAssignee?: boolean;
  logic?: { type?: LogicType; value?: Record<string, unknown>; conditions?: LogicCondition[] };
  pluginId?: string;
  pluginConfig?: Record<string, unknown>;
  webhook?: WebhookConfig;
  consensusConfig?: ConsensusConfig;
  readOnly?: boolean;
  preventRequeue?: boolean;
  autoForward?: boolean;
  consensusId?: string;
  [extra: string]: unknown;
}

export interface ClassificationOption {
  schemaId: string;
  value: string;
  children?: Classification[];
  [extra: string]: unknown;
}

export interface Classification {
  schemaId: string;
  title: string;
  tool: string;
  color?: string;
  required?: boolean;
  shortcutKey?: string;
  options?: ClassificationOption[];
  classifications?: Classification[];
  [extra: string]: unknown;
}

export interface Tool {
  schemaId: string;
  title: string;
  tool: string;
  color?: string;
  required?: boolean;
  shortcutKey?: string;
  classifications?: Classification[];
  [extra: string]: unknown;
}

export interface Relation {
  schemaId: string;
  title: string;
  tool: string;
  color?: string;
  shortcutKey?: string;
  [extra: string]: unknown;
}

export interface CategorySchema {
  tools: Tool[];
  classifications: Classification[];
  relations: Relation[];
}

export const PROJECT_ROLES = covers<ContractProjectRole>()(['Manager', 'Lead', 'Reviewer', 'Labeler'] as const);
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export interface Project {
  _id: string;
  name: string;
  description?: string;
  type: string;
  owner?: string;
  organization: string;
  categorySchema: CategorySchema;
  stages: Stage[];
  assignedTo: { assignee: string; role: ProjectRole }[];
  batches: { _id?: string; name: string }[];
  assetCount?: number;
  idleTimeout?: number;
  taskSkipEnabled?: boolean;
  queueCountsEnabled?: boolean;
  unassignSkippedTask?: boolean;
  benchmarkEnabled?: boolean;
  errorCodesEnabled?: boolean;
  /** The storage the project's files go to (with its bucket), when set. */
  exportStorageId?: string;
  exportStorageBucket?: string;
  role?: ProjectRole;
  archived?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectListItem {
  _id: string;
  name: string;
  description: string;
  organization: string;
  createdAt: string;
  archived?: boolean;
  /** With `counts=true`: the caller's role, and the live task counts where the role may read them. */
  role?: ProjectRole;
  progress?: { tasks: number; completed: number; archived: number };
}

export interface StageWarning {
  kind: string;
  failedCount?: number;
  lastError?: string;
  lastFailedAt?: string;
}

export type StageStatus = Stage & { taskCount: number; warnings: StageWarning[] };

export interface WebhookLogEntry {
  _id: string;
  line: string;
  date: string;
  status: number | null;
  error: string | null;
  externalId: string;
  stageId: string;
  taskId: string;
  attempt: number;
}
