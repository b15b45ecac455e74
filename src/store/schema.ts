import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/*
 * Table types of the store. The same shapes hold on SQLite and PostgreSQL:
 * - times are ISO 8601 UTC strings with milliseconds (they sort as text),
 * - booleans are integers 0/1,
 * - documents (ontology, stages, settings, answers) are JSON text.
 */

export interface OrganizationTable {
  id: string;
  name: string;
  plan: string;
  /** Requests per minute for the enterprise plan; null on the fixed plans. */
  rate_limit: number | null;
  /** 1: members may sign in with e-mail and password; 0: single sign-on (and API keys) only. */
  password_sign_in: ColumnType<number, number | undefined, number>;
  created_at: string;
}

export interface UserTable {
  id: string;
  email: string;
  name: string;
  organization_id: string;
  /** owner | admin | member */
  org_role: string;
  created_at: string;
  /** 1 when an invite made the account: single sign-on does not refuse them for their groups. */
  joined_by_invite: ColumnType<number, number | undefined, number>;
}

export interface ApiKeyTable {
  id: string;
  user_id: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** First characters of the key, to tell keys apart in listings. */
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export interface InviteTable {
  id: string;
  organization_id: string;
  email: string;
  organization_role: string;
  /** JSON array of {projectId, projectRole} */
  project_assignments: string;
  created_by: string;
  created_at: string;
}

/** A person's password: `scrypt$<params>$<salt>$<hash>` (adapters/crypto/password-hash.ts). */
export interface UserPasswordTable {
  user_id: string;
  hash: string;
  updated_at: string;
}

/** A signed-in browser. The cookie carries the token; only its SHA-256 is kept. */
export interface SessionTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  last_seen_at: string;
  /** Slides to last_seen_at + ANNOTARY_SESSION_HOURS while the session is used. */
  expires_at: string;
}

/** A one-time link to set a password: purpose 'owner' | 'reset' | 'invite'. */
export interface PasswordLinkTable {
  id: string;
  token_hash: string;
  purpose: string;
  email: string;
  organization_id: string;
  /** Set for owner and reset links; an invite's user does not exist yet. */
  user_id: string | null;
  /** Set for invite links: the invite the link accepts. */
  invite_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface ProjectTable {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  type: string;
  owner_email: string;
  /** JSON CategorySchema */
  category_schema: string;
  /** JSON array of Stage */
  stages: string;
  /** JSON object of the remaining ProjectUpdateRequest fields */
  settings: string;
  /** JSON PctConfig or null */
  pct_config: string | null;
  queue_version: number;
  asset_count: number;
  deleted: number;
  /** When a Manager archived the project; null while active (migration 015). */
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectMemberTable {
  project_id: string;
  email: string;
  role: string;
  created_at: string;
}

export interface BatchTable {
  id: string;
  project_id: string;
  name: string;
  created_at: string;
}

export interface JobTable {
  id: string;
  kind: string;
  /** JSON payload of the job kind */
  payload: string;
  /** queued | running | done | failed */
  status: string;
  run_at: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface KvTable {
  key: string;
  value: string;
  updated_at: ColumnType<string, string, string>;
}

export interface AssetTable {
  id: string;
  project_id: string;
  external_id: string;
  /** http(s) URL of the asset's file */
  data: string;
  /** JSON, or null */
  context_data: string | null;
  /** JSON object, or null */
  metadata: string | null;
  storage_id: string | null;
  /** JSON array of {type, value} */
  attachments: string;
  deleted: number;
  created_by: string;
  created_at: string;
  /** AssetSize facts, set at import (assetSizeFacts): size bucket 0..5 or null, file type. */
  width_bucket: number | null;
  height_bucket: number | null;
  file_type: string;
  /** What reading the file's header found wrong, in words (migration 019); null when nothing. */
  media_warning: ColumnType<string | null, string | null | undefined, string | null>;
  /** The pages' addresses of an asset made of several images, as a JSON array (migration 021); null for one file. */
  dataset: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AssetBatchTable {
  asset_id: string;
  batch_id: string;
}

export interface TaskTable {
  id: string;
  project_id: string;
  asset_id: string;
  external_id: string;
  stage_id: string;
  /** TODO | Completed | Archived */
  status: string;
  assignee: string | null;
  priority: number;
  /** JSON {tools, classifications, relations} */
  answer: string;
  review_status: string | null;
  /** ms spent in the current stage, as reported by annotators */
  duration: number;
  total_duration: number;
  open_issues_count: number;
  is_pre_labeled: number;
  /** default | consensus */
  type: string;
  parent_task_id: string | null;
  /** Consensus container stage of a copy */
  consensus_id: string | null;
  consensus_score: number | null;
  brush_data_url: string | null;
  medical_brush_data_url: string | null;
  /** A video's brush layers, JSON `[{page, url}]` in frame order; null when none (migration 030). */
  brush_frames: string | null;
  /** 1 while an answer saved in the current stage has not been submitted (migration 010). */
  is_draft: number;
  stage_entered_at: string;
  deleted: number;
  created_at: string;
  updated_at: string;
  updated_by: string | null;
  completed_at: string | null;
  completed_by: string | null;
}

export interface TaskHistoryTable {
  id: string;
  task_id: string;
  project_id: string;
  asset_id: string;
  stage_id: string;
  stage_name: string;
  stage_type: string;
  /** JSON answer at the time the task left the stage */
  answer: string;
  duration: number;
  completed_at: string;
  completed_by: string | null;
  review_status: string | null;
  is_skipped: number;
  consensus_id: string | null;
  /** submit | review | auto | webhook | logic | consensus | forward | plugin | requeue | skip */
  trigger: string;
}

export interface IssueTable {
  id: string;
  project_id: string;
  task_id: string;
  asset_id: string;
  stage_id: string;
  content: string;
  position: string | null;
  page: number | null;
  object_id: string | null;
  /** JSON array of strings or {category, name, key} objects */
  error_codes: string;
  /** JSON object of point-cloud details, or null (migration 010) */
  pct_details: ColumnType<string | null, string | null | undefined, string | null>;
  /** Open | Resolved */
  status: string;
  /** JSON array of {_id, content, createdBy, createdAt} */
  comments: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  deleted: number;
}

export interface StorageTable {
  id: string;
  organization_id: string;
  name: string;
  /** AWS | CUSTOM_S3 | GCP | AZURE */
  provider: string;
  region: string | null;
  s3_access_type: string | null;
  s3_role_arn: string | null;
  s3_external_id: string | null;
  s3_user_arn: string | null;
  host: string | null;
  azure_auth_type: string | null;
  azure_tenant_id: string | null;
  azure_client_id: string | null;
  public_key: string | null;
  use_accelerate_endpoint: number;
  /** Sealed (AES-256-GCM) JSON of privateKey / credentials / azureClientSecret; null once deleted. */
  secrets: string | null;
  created_by: string;
  created_at: string;
  deleted: number;
  deleted_at: string | null;
}

/** One line per webhook delivery attempt (and per dropped delivery). */
export interface WebhookLogTable {
  id: string;
  project_id: string;
  stage_id: string;
  task_id: string;
  delivery_id: string;
  attempt: number;
  external_id: string;
  /** HTTP status of the answer; null when there was none (then `error` says why). */
  status: number | null;
  error: string | null;
  created_at: string;
}

/** A task whose last webhook delivery failed for good, while it waits in that stage. */
export interface WebhookFailureTable {
  task_id: string;
  project_id: string;
  stage_id: string;
  /** The task's stage_entered_at at failure: a later visit of the stage is not this failure. */
  entered_at: string;
  delivery_id: string;
  error: string;
  failed_at: string;
}

/** A plugin registered to an organization (Plugin stages name it by id). */
export interface PluginTable {
  id: string;
  organization_id: string;
  name: string;
  url: string;
  /** Sealed (AES-256-GCM) secret sent as the Secret header; null once deleted. */
  secret: string | null;
  /** Where the editor's Assist requests are POSTed; null when the plugin answers none. */
  assist_url: string | null;
  created_by: string;
  created_at: string;
  deleted: number;
  deleted_at: string | null;
}

/** One call of a plugin for a task's visit of a Plugin stage; the id is the session. */
export interface PluginCallTable {
  id: string;
  project_id: string;
  stage_id: string;
  task_id: string;
  plugin_id: string;
  /** The task's stage_entered_at when queued: a later visit of the stage is not this call's. */
  entered_at: string;
  /** sending | waiting | answered | failed | superseded */
  status: string;
  attempts: number;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A log line of a plugin session: posted by the plugin, or one per call attempt. */
export interface PluginLogTable {
  id: string;
  session_id: string;
  project_id: string;
  stage_id: string;
  task_id: string;
  /** plugin | annotary */
  source: string;
  message: string;
  created_at: string;
}

/**
 * Live tasks per project, written only by triggers (migration 007): a project's count is the
 * sum of its rows (one row on SQLite; delta rows on PostgreSQL until a reader folds them).
 */
export interface TaskCountTable {
  project_id: string;
  live: number;
}

/** An export requested of a project (migration 015): the project's history of exports. */
export interface ExportRecordTable {
  id: string;
  project_id: string;
  created_at: string;
  created_by: string;
  type: string;
  format: string;
  filters: string;
  bytes: number;
  ms: number;
  file_name: string | null;
  storage_ref: string | null;
}

/**
 * The history's work per project, batch ('' for all), period, person, stage and trigger
 * (migration 029): `work_counts` per UTC hour, `work_minute_counts` per UTC minute.
 */
export interface WorkCountTable {
  project_id: string;
  batch_id: string;
  /** 'YYYY-MM-DDTHH' (hours) or 'YYYY-MM-DDTHH:MM' (minutes) of completed_at */
  period: string;
  person: string;
  stage_id: string;
  stage_name: string;
  stage_type: string;
  trigger: string;
  accepted: number;
  rejected: number;
  entries: number;
  time_spent: number;
}

/** Assets in both of two batches, batch_a < batch_b (migration 029). */
export interface BatchOverlapTable {
  batch_a: string;
  batch_b: string;
  assets: number;
}

/** Live tasks per project, batch ('' for all), stage, status and type (migration 012). */
export interface TaskFacetTable {
  project_id: string;
  batch_id: string;
  stage_id: string;
  status: string;
  type: string;
  live: number;
}

/**
 * Classification answer values and tool objects of a project's current answers, written only
 * by triggers on tasks (migration 008): kind 'classification' (value = the answer value) or
 * 'tool' (value ''), n = how many.
 */
export interface AnswerCountTable {
  project_id: string;
  kind: string;
  schema_id: string;
  value: string;
  n: number;
}

/** One change made in an organization (migration 016): append-only. */
export interface AuditLogTable {
  id: string;
  organization_id: string;
  at: string;
  user_id: string | null;
  actor: string | null;
  address: string | null;
  operation: string;
  target_type: string;
  target_id: string;
  project_id: string | null;
  fields: string;
}

/** A benchmark task's reference answer (migration 017). */
export interface BenchmarkReferenceTable {
  task_id: string;
  project_id: string;
  answer: string;
  source: string;
  created_by: string;
  created_at: string;
  /** The reference's voxel layer link (migration 027). */
  medical_brush_data_url: string | null;
  /** The reference's brush layer link (migration 028): the task's when it was marked. */
  brush_data_url: string | null;
}

/** One labeler's scored answer to a benchmark (migration 017). */
export interface BenchmarkSubmissionTable {
  id: string;
  project_id: string;
  task_id: string;
  labeler: string;
  answer: string;
  score: number;
  detail: string;
  created_at: string;
  /** The voxel layer link the submission was scored with (migration 027). */
  medical_brush_data_url: string | null;
  /** The brush layer link the submission was scored with (migration 028). */
  brush_data_url: string | null;
}

/** The benchmark a labeler is working (migration 018). */
export interface BenchmarkHandoutTable {
  project_id: string;
  labeler: string;
  task_id: string;
  stage_id: string;
  handed_at: string;
}

/** When a Manager last let a labeler stopped by the cutoff continue (migration 018). */
export interface BenchmarkResumeTable {
  project_id: string;
  labeler: string;
  resumed_at: string;
  resumed_by: string;
}

/** What one decided consensus round measured for one ontology item (migration 022). */
export interface ConsensusAgreementTable {
  id: string;
  project_id: string;
  parent_task_id: string;
  asset_id: string;
  consensus_id: string;
  schema_id: string;
  /** 'tool' | 'classification' */
  kind: string;
  answer_a: string;
  answer_b: string;
  value: number;
  decided_at: string;
}

export interface Database {
  organizations: OrganizationTable;
  users: UserTable;
  api_keys: ApiKeyTable;
  invites: InviteTable;
  user_passwords: UserPasswordTable;
  sessions: SessionTable;
  password_links: PasswordLinkTable;
  projects: ProjectTable;
  project_members: ProjectMemberTable;
  batches: BatchTable;
  jobs: JobTable;
  kv: KvTable;
  assets: AssetTable;
  asset_batches: AssetBatchTable;
  tasks: TaskTable;
  task_history: TaskHistoryTable;
  task_counts: TaskCountTable;
  task_facets: TaskFacetTable;
  work_counts: WorkCountTable;
  work_minute_counts: WorkCountTable;
  batch_overlaps: BatchOverlapTable;
  export_records: ExportRecordTable;
  audit_log: AuditLogTable;
  benchmark_references: BenchmarkReferenceTable;
  benchmark_submissions: BenchmarkSubmissionTable;
  benchmark_handouts: BenchmarkHandoutTable;
  benchmark_resumes: BenchmarkResumeTable;
  consensus_agreements: ConsensusAgreementTable;
  answer_counts: AnswerCountTable;
  issues: IssueTable;
  storages: StorageTable;
  webhook_logs: WebhookLogTable;
  webhook_failures: WebhookFailureTable;
  plugins: PluginTable;
  plugin_calls: PluginCallTable;
  plugin_logs: PluginLogTable;
}

export type OrganizationRow = Selectable<OrganizationTable>;
export type UserRow = Selectable<UserTable>;
export type SessionRow = Selectable<SessionTable>;
export type PasswordLinkRow = Selectable<PasswordLinkTable>;
export type ProjectRow = Selectable<ProjectTable>;
export type NewProject = Insertable<ProjectTable>;
export type ProjectPatch = Updateable<ProjectTable>;
export type JobRow = Selectable<JobTable>;
export type AssetRow = Selectable<AssetTable>;
export type TaskRow = Selectable<TaskTable>;
export type TaskHistoryRow = Selectable<TaskHistoryTable>;
export type IssueRow = Selectable<IssueTable>;
