import type { CategorySchema } from '../schemas/category-schema.js';
import type { Stage } from '../schemas/stage.js';
import type { TaskHistoryRow, TaskRow } from '../store/schema.js';

/** Why a task left a stage; kept on its history entry. */
export type Trigger =
  'submit' | 'review' | 'auto' | 'webhook' | 'logic' | 'consensus' | 'forward' | 'plugin' | 'requeue' | 'skip';

/** What a task's history entry says of how it left a stage. */
export interface ExitRecord {
  trigger: Trigger;
  reviewStatus?: string | null;
  isSkipped?: boolean;
}

export interface TaskAnswer {
  tools: Record<string, unknown>[];
  classifications: Record<string, unknown>[];
  relations: Record<string, unknown>[];
  /** Point-cloud segmentation: run-length class codes per frame (docs/api.md, Point clouds). */
  pointLabels?: unknown[];
}

export const EMPTY_ANSWER: TaskAnswer = Object.freeze({ tools: [], classifications: [], relations: [] }) as TaskAnswer;

/** What routing needs to know of the project. */
export interface ProjectInfo {
  id: string;
  orgId: string;
  name: string;
  stages: Stage[];
  categorySchema: CategorySchema;
  settings: Record<string, unknown>;
}

/** A task as routing sees it: the row, changed in memory, written once at the end. */
export interface TaskState {
  row: TaskRow;
  /** The task was created in this operation (its pass through Start is not recorded). */
  isNew: boolean;
}

/** Facts about a task that live outside its row; for a new task they are known without a query. */
export interface TaskFacts {
  /** The batches of the task's asset. */
  batches(): Promise<{ id: string; name: string }[]>;
  /** E-mail of the last person who submitted the task out of a Label stage. */
  lastLabelSubmitter(): Promise<string | undefined>;
  /** Total time spent in Label stages, ms. */
  labelDuration(): Promise<number>;
  /** Error codes of the task's open issues. */
  openIssueErrorCodes(): Promise<string[]>;
  /** Who last completed the task in the given stage (rememberAssignee). */
  lastCompleterIn(stageId: string): Promise<string | undefined>;
}

/** A history entry as routing writes it. */
export type NewHistoryEntry = TaskHistoryRow;

export interface NewJob {
  id: string;
  kind: string;
  payload: unknown;
}

/** Everything a routing run wants written, flushed in bulk inside the caller's transaction. */
export interface Effects {
  history: NewHistoryEntry[];
  jobs: NewJob[];
  /** Tasks made during routing (consensus copies), in their resting state. */
  newTasks: TaskRow[];
  /** Tasks other than the routed ones that changed (a consensus parent). */
  updatedTasks: TaskRow[];
}

export function emptyEffects(): Effects {
  return { history: [], jobs: [], newTasks: [], updatedTasks: [] };
}
