import { sql } from 'kysely';
import type { Engine, Executor } from '../db.js';
import { preparedQuery } from '../prepared-query.js';
import type { NewProject, ProjectPatch, ProjectRow } from '../schema.js';

export interface ProjectWithRole {
  row: ProjectRow;
  /** The caller's own project role, when the caller is a member. */
  memberRole: string | undefined;
}

const projectForMember = preparedQuery(['projectId', 'email'], (db, a) =>
  db
    .selectFrom('projects as p')
    .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.email', '=', a.email))
    .selectAll('p')
    .select('m.role as member_role')
    .where('p.id', '=', a.projectId)
    .where('p.deleted', '=', 0),
);

/** A live (not deleted) project with the given member's role on it, in one query. */
export async function findProjectForMember(
  db: Executor,
  projectId: string,
  email: string,
): Promise<ProjectWithRole | undefined> {
  const [row] = await projectForMember(db, { projectId, email });
  if (!row) return undefined;
  const { member_role, ...project } = row;
  return { row: project, memberRole: member_role ?? undefined };
}

export interface ProjectForReader extends ProjectWithRole {
  /** Every member, in the order they joined (then by e-mail). */
  members: { email: string; role: string }[];
  /** Every batch, in the order they were made (then by id). */
  batches: { id: string; name: string }[];
}

// Members and batches ride along as JSON arrays (one row, no cross product), ordered inside
// the aggregate so that the order does not hang on a subquery's.
const MEMBERS_JSON = {
  sqlite: sql<unknown>`(select json_group_array(json_object('email', pm.email, 'role', pm.role) order by pm.created_at, pm.email) from project_members pm where pm.project_id = p.id)`,
  postgres: sql<unknown>`(select coalesce(json_agg(json_build_object('email', pm.email, 'role', pm.role) order by pm.created_at, pm.email), '[]'::json) from project_members pm where pm.project_id = p.id)`,
};
const BATCHES_JSON = {
  sqlite: sql<unknown>`(select json_group_array(json_object('id', b.id, 'name', b.name) order by b.created_at, b.id) from batches b where b.project_id = p.id)`,
  postgres: sql<unknown>`(select coalesce(json_agg(json_build_object('id', b.id, 'name', b.name) order by b.created_at, b.id), '[]'::json) from batches b where b.project_id = p.id)`,
};

function projectReaderQuery(engine: Engine) {
  return preparedQuery(['projectId', 'email'], (db, a) =>
    db
      .selectFrom('projects as p')
      .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'p.id').on('m.email', '=', a.email))
      .selectAll('p')
      .select('m.role as member_role')
      .select(MEMBERS_JSON[engine].as('members_json'))
      .select(BATCHES_JSON[engine].as('batches_json'))
      .where('p.id', '=', a.projectId)
      .where('p.deleted', '=', 0),
  );
}
const projectReader = { sqlite: projectReaderQuery('sqlite'), postgres: projectReaderQuery('postgres') };

// SQLite answers JSON as text; pg parses json columns itself.
const jsonArray = <T>(value: unknown): T[] => (typeof value === 'string' ? JSON.parse(value) : value) as T[];

/**
 * What GET /project/{id} answers, in one statement: a live project, the given member's role on
 * it, its members and its batches.
 */
export async function findProjectForReader(
  db: Executor,
  engine: Engine,
  projectId: string,
  email: string,
): Promise<ProjectForReader | undefined> {
  const [row] = await projectReader[engine](db, { projectId, email });
  if (!row) return undefined;
  const { member_role, members_json, batches_json, ...project } = row;
  return {
    row: project,
    memberRole: member_role ?? undefined,
    members: jsonArray(members_json),
    batches: jsonArray(batches_json),
  };
}

export type ProjectSortColumn = 'created_at' | 'updated_at' | 'name';

export interface ProjectListQuery {
  orgId: string;
  /** Only projects this e-mail is a member of; undefined lists the whole organization. */
  memberEmail: string | undefined;
  offset: number;
  limit: number;
  sort: ProjectSortColumn;
  descending: boolean;
  /** Only projects whose name contains this text, case-insensitively. */
  name?: string | undefined;
  /** true: only archived projects; false: only active ones; undefined: both. */
  archived?: boolean | undefined;
}

// LIKE wildcards in the user's text are matched literally.
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listProjects(db: Executor, q: ProjectListQuery): Promise<{ rows: ProjectRow[]; total: number }> {
  let base = db.selectFrom('projects as p').where('p.organization_id', '=', q.orgId).where('p.deleted', '=', 0);
  if (q.memberEmail !== undefined) {
    const email = q.memberEmail;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom('project_members as m')
          .select('m.project_id')
          .whereRef('m.project_id', '=', 'p.id')
          .where('m.email', '=', email),
      ),
    );
  }
  if (q.name) {
    const pattern = `%${likeEscaped(q.name.toLowerCase())}%`;
    base = base.where(sql<boolean>`lower(p.name) like ${pattern} escape '\\'`);
  }
  if (q.archived !== undefined) base = base.where('p.archived_at', q.archived ? 'is not' : 'is', null);
  const direction = q.descending ? 'desc' : 'asc';
  const [rows, count] = await Promise.all([
    base
      .selectAll('p')
      .orderBy(`p.${q.sort}`, direction)
      .orderBy('p.id', direction)
      .offset(q.offset)
      .limit(q.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** The member role of `email` on each of the projects (absent where it has none). */
export async function memberRolesOf(db: Executor, projectIds: readonly string[], email: string) {
  if (projectIds.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom('project_members')
    .select(['project_id', 'role'])
    .where('project_id', 'in', projectIds)
    .where('email', '=', email)
    .execute();
  return new Map(rows.map((r) => [r.project_id, r.role]));
}

export async function insertProject(db: Executor, row: NewProject): Promise<void> {
  await db.insertInto('projects').values(row).execute();
}

export async function updateProject(db: Executor, id: string, patch: ProjectPatch): Promise<void> {
  await db.updateTable('projects').set(patch).where('id', '=', id).execute();
}

/** Adds `delta` (negative to take away) to the project's asset count, and stamps its change time when given. */
export async function addToAssetCount(db: Executor, id: string, delta: number, updatedAt?: string): Promise<void> {
  await db
    .updateTable('projects')
    .set((eb) => ({
      asset_count: eb('asset_count', '+', delta),
      ...(updatedAt === undefined ? {} : { updated_at: updatedAt }),
    }))
    .where('id', '=', id)
    .execute();
}

export async function listMembers(db: Executor, projectId: string) {
  return db
    .selectFrom('project_members')
    .select(['email', 'role'])
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('email')
    .execute();
}

/** Sets each e-mail's role on the project, adding members that are new. */
export async function upsertMembers(
  db: Executor,
  projectId: string,
  members: { email: string; role: string }[],
  now: string,
): Promise<void> {
  if (members.length === 0) return;
  await db
    .insertInto('project_members')
    .values(members.map((m) => ({ project_id: projectId, email: m.email, role: m.role, created_at: now })))
    .onConflict((oc) => oc.columns(['project_id', 'email']).doUpdateSet((eb) => ({ role: eb.ref('excluded.role') })))
    .execute();
}

export async function removeMembers(db: Executor, projectId: string, emails: string[]): Promise<void> {
  if (emails.length === 0) return;
  await db.deleteFrom('project_members').where('project_id', '=', projectId).where('email', 'in', emails).execute();
}

/** Those of the projects that belong to the organization, with their names. */
export async function projectNamesInOrg(
  db: Executor,
  orgId: string,
  ids: readonly string[],
): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('projects')
    .select(['id', 'name'])
    .where('organization_id', '=', orgId)
    .where('id', 'in', ids)
    .execute();
}

/** The e-mail's role on each project of the organization it has one on, in project id order. */
export async function memberRolesInOrg(db: Executor, orgId: string, email: string) {
  return db
    .selectFrom('project_members as m')
    .innerJoin('projects as pr', 'pr.id', 'm.project_id')
    .select(['m.project_id', 'm.role'])
    .where('m.email', '=', email)
    .where('pr.organization_id', '=', orgId)
    .orderBy('m.project_id')
    .execute();
}

/** Takes every role the e-mail has on the organization's projects. */
export async function removeMemberFromOrg(db: Executor, orgId: string, email: string): Promise<void> {
  const projectIds = db.selectFrom('projects').select('id').where('organization_id', '=', orgId);
  await db.deleteFrom('project_members').where('email', '=', email).where('project_id', 'in', projectIds).execute();
}

export async function listBatches(db: Executor, projectId: string) {
  return db
    .selectFrom('batches')
    .select(['id', 'name'])
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The project's batch of that name, if any. */
export async function findBatchByName(db: Executor, projectId: string, name: string) {
  return db
    .selectFrom('batches')
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Whether a batch of any project has the id. */
export async function batchIdTaken(db: Executor, id: string): Promise<boolean> {
  const row = await db.selectFrom('batches').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function insertBatch(
  db: Executor,
  row: { id: string; project_id: string; name: string; created_at: string },
) {
  await db.insertInto('batches').values(row).execute();
}

export async function renameBatch(db: Executor, id: string, name: string): Promise<void> {
  await db.updateTable('batches').set({ name }).where('id', '=', id).execute();
}

/** The project's stored settings text, read under a row lock on PostgreSQL so that writers queue. */
export async function lockSettings(db: Executor, engine: Engine, id: string): Promise<string> {
  const q = db.selectFrom('projects').select('settings').where('id', '=', id);
  const row = await (engine === 'postgres' ? q.forUpdate() : q).executeTakeFirstOrThrow();
  return row.settings;
}

/** The organization's live projects whose stored stages text contains `fragment`. */
export async function liveProjectStagesContaining(db: Executor, orgId: string, fragment: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'stages'])
    .where('organization_id', '=', orgId)
    .where('deleted', '=', 0)
    .where('stages', 'like', `%${fragment}%`)
    .execute();
}

/** Projects whose stored stages text contains `fragment`, in id order, `limit` at a time after `afterId`. */
export async function projectStagesContaining(
  db: Executor,
  fragment: string,
  afterId: string,
  limit: number,
): Promise<{ id: string; stages: string }[]> {
  return db
    .selectFrom('projects')
    .select(['id', 'stages'])
    .where('stages', 'like', `%${fragment}%`)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Rewrites the stages text only if it is still `before` (another writer wins); true when written. */
export async function replaceStages(db: Executor, id: string, before: string, after: string): Promise<boolean> {
  const res = await db
    .updateTable('projects')
    .set({ stages: after })
    .where('id', '=', id)
    .where('stages', '=', before)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Projects whose stored pctConfig text contains `fragment`, in id order, `limit` at a time after `afterId`. */
export async function projectPctConfigsContaining(
  db: Executor,
  fragment: string,
  afterId: string,
  limit: number,
): Promise<{ id: string; pct_config: string }[]> {
  const rows = await db
    .selectFrom('projects')
    .select(['id', 'pct_config'])
    .where('pct_config', 'like', `%${fragment}%`)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.filter((r): r is { id: string; pct_config: string } => r.pct_config !== null);
}
