import type { TaskRow } from '../store/schema.js';
import { EMPTY_ANSWER } from './types.js';

export interface FreshTask {
  id: string;
  projectId: string;
  assetId: string;
  externalId: string;
  stageId: string;
  priority: number;
  now: string;
  actor: string | null;
  type?: 'default' | 'consensus';
  parentTaskId?: string | null;
  consensusId?: string | null;
}

/** A task row as it is made: empty answer, no time spent, nobody assigned, not yet routed. */
export function freshTaskRow(t: FreshTask): TaskRow {
  return {
    id: t.id,
    project_id: t.projectId,
    asset_id: t.assetId,
    external_id: t.externalId,
    stage_id: t.stageId,
    status: 'TODO',
    assignee: null,
    priority: t.priority,
    answer: JSON.stringify(EMPTY_ANSWER),
    review_status: null,
    duration: 0,
    total_duration: 0,
    open_issues_count: 0,
    is_pre_labeled: 0,
    type: t.type ?? 'default',
    parent_task_id: t.parentTaskId ?? null,
    consensus_id: t.consensusId ?? null,
    consensus_score: null,
    brush_data_url: null,
    medical_brush_data_url: null,
    brush_frames: null,
    is_draft: 0,
    stage_entered_at: t.now,
    deleted: 0,
    created_at: t.now,
    updated_at: t.now,
    updated_by: t.actor,
    completed_at: null,
    completed_by: null,
  };
}
