import type { components } from '../../../src/client/schema';
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

type Schemas = components['schemas'];
type Defined<T> = Exclude<T, null | undefined>;

/** A logic stage's rule and its conditions, as the document describes them. */
export type StageLogic = Defined<Schemas['Stage']['logic']>;
export type LogicCondition = Defined<Defined<StageLogic['conditions']>[number]>;
export type LogicConditionValue = Defined<LogicCondition['value']>;
export type WebhookConfig = Defined<Schemas['Stage']['webhook']>;
export type ConsensusConfig = Defined<Schemas['Stage']['consensusConfig']>;
export type Stage = Schemas['Stage'];
export type ClassificationOption = Schemas['ClassificationOption'];
export type Classification = Schemas['Classification'];
export type Tool = Schemas['Tool'];
export type Relation = Schemas['Relation'];
/**
 * The ontology as the server answers it: the document lets a request leave a list out, the
 * answer always carries the three (the ontology editor edits them in place).
 */
export interface CategorySchema {
  tools: Tool[];
  classifications: Classification[];
  relations: Relation[];
}

export const PROJECT_ROLES = covers<ContractProjectRole>()(['Manager', 'Lead', 'Reviewer', 'Labeler'] as const);
export type ProjectRole = (typeof PROJECT_ROLES)[number];

export type Project = Omit<Schemas['Project'], 'categorySchema'> & { categorySchema: CategorySchema };
export type ProjectListItem = Schemas['ProjectListItem'];

export type StageStatus = Schemas['StageStatus'];
export type StageWarning = StageStatus['warnings'][number];
export type WebhookLogEntry = Schemas['WebhookLogEntry'];
