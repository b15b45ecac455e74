import type { AppContext } from '../../context.js';
import { audit } from '../audit/audit.service.js';
import type { ExportQuery } from '../../schemas/export.js';
import { insertExportRecord, listExportRecords } from '../../store/repositories/export-record.repository.js';
import type { ExportRecordTable } from '../../store/schema.js';
import type { Principal } from '../../access.js';
import { loadProject } from '../identity/project-access.js';
import { storageUrlSigner } from '../storages/storage.service.js';
import { EXPORT_LINK_SECONDS, signExportLink } from './export-link.js';

/*
 * The project's history of exports (GET /v2/project/{id}/exports, an extension): every export
 * asked of the project, by whom, with what filters, and a link while its zip is still there. The
 * contract keeps no list; without one, each browser could only remember its own exports.
 */

/** The query parameters that narrow an export, kept as sent (the rest are the project and ignored flags). */
const FILTERS = [
  'stage',
  'batches',
  'status',
  'createdAt',
  'updatedAt',
  'includeMetadata',
  'includeHistory',
  'includeSegmentationPoints',
  'includeMask',
  'includeOnlyKeyFrames',
  'taskTypes',
] as const;

export interface ExportMade {
  id: string;
  createdAt: string;
  type: string;
  format: string;
  bytes: number;
  ms: number;
  /** A local zip's file name, or where the zip went in the project's storage. */
  place: { fileName: string } | { storage: { storageId: string; bucket: string; key: string } };
}

export async function recordExport(ctx: AppContext, p: Principal, projectId: string, q: ExportQuery, made: ExportMade) {
  const filters = Object.fromEntries(FILTERS.filter((k) => q[k] !== undefined).map((k) => [k, q[k]]));
  const row: ExportRecordTable = {
    id: made.id,
    project_id: projectId,
    created_at: made.createdAt,
    created_by: p.email,
    type: made.type,
    format: made.format,
    filters: JSON.stringify(filters),
    bytes: made.bytes,
    ms: made.ms,
    file_name: 'fileName' in made.place ? made.place.fileName : null,
    storage_ref: 'storage' in made.place ? JSON.stringify(made.place.storage) : null,
  };
  await ctx.store.db.transaction().execute(async (trx) => {
    await insertExportRecord(trx, row);
    await audit(trx, ctx.clock, p, {
      operation: 'export.request',
      targetType: 'export',
      targetId: made.id,
      projectId,
      fields: Object.keys(filters),
    });
  });
}

/**
 * A link to the record's zip while there is one: a local zip's link is signed again as it was
 * made (same expiry), on the address the list was asked at; a zip in the project's storage gets a fresh signed URL, or none when the
 * storage no longer answers.
 */
async function linkOf(ctx: AppContext, orgId: string, r: ExportRecordTable, now: number, linkBase: string) {
  const made = Date.parse(r.created_at);
  if (r.file_name) {
    const expiresAt = new Date((Math.floor(made / 1000) + EXPORT_LINK_SECONDS) * 1000).toISOString();
    const live = Date.parse(expiresAt) > now;
    return {
      exportPath: live ? signExportLink(linkBase, ctx.secretKey, r.file_name, made) : null,
      expiresAt,
    };
  }
  try {
    const ref = JSON.parse(r.storage_ref ?? '{}') as { storageId: string; bucket: string; key: string };
    const signer = await storageUrlSigner(ctx, orgId, ref.storageId);
    try {
      return { exportPath: await signer.read({ bucket: ref.bucket, key: ref.key }), expiresAt: null };
    } finally {
      signer.close();
    }
  } catch {
    return { exportPath: null, expiresAt: null };
  }
}

export async function listExports(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  q: { page: number; limit: number },
  linkBase = ctx.config.publicUrl,
) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const { rows, total } = await listExportRecords(ctx.store.db, row.id, (q.page - 1) * q.limit, q.limit);
  const now = ctx.clock.now();
  const exports = await Promise.all(
    rows.map(async (r) => ({
      _id: r.id,
      createdAt: r.created_at,
      createdBy: r.created_by,
      type: r.type,
      format: r.format,
      filters: JSON.parse(r.filters) as Record<string, string>,
      bytes: Number(r.bytes),
      ms: Number(r.ms),
      storage: r.storage_ref !== null,
      ...(await linkOf(ctx, row.organization_id, r, now, linkBase)),
    })),
  );
  return { exports, total };
}
