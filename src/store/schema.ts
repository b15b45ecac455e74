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

export interface Database {
  organizations: OrganizationTable;
  users: UserTable;
  api_keys: ApiKeyTable;
  invites: InviteTable;
  projects: ProjectTable;
  project_members: ProjectMemberTable;
  batches: BatchTable;
  jobs: JobTable;
  kv: KvTable;
}

export type OrganizationRow = Selectable<OrganizationTable>;
export type UserRow = Selectable<UserTable>;
export type ProjectRow = Selectable<ProjectTable>;
export type NewProject = Insertable<ProjectTable>;
export type ProjectPatch = Updateable<ProjectTable>;
export type JobRow = Selectable<JobTable>;
