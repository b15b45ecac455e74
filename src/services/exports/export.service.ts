import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { putFileToSignedUrl, type UploadOutcome } from '../../adapters/signed-upload.js';
import type { AppContext } from '../../context.js';
import { AppError, invalidField, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ExportDownloadParams, ExportQuery } from '../../schemas/export.js';
import type { Stage } from '../../schemas/stage.js';
import { listBatches } from '../../store/repositories/project.repository.js';
import type { ProjectRow } from '../../store/schema.js';
import type { Principal } from '../../access.js';
import { issuePages, taskPages } from './export-items.js';
import {
  checkExportLink,
  EXPORT_LINK_SECONDS,
  exportFileName,
  exportsDir,
  signExportLink,
  sweepExports,
} from './export-link.js';
import { signMaskLink } from '../tasks/mask-link.js';
import { taskLinks } from '../files/layers/brush-layer.js';
import { exportPlan, type ExportPlan } from './export-options.js';
import { framed } from './export-chunks.js';
import { expandedAnswers } from './export-frames.js';
import { recordExport } from './export-records.js';
import { writeSingleEntryZip } from './export-zip.js';
import { datasetEntries } from './datasets/dataset-export.js';
import { writeZipEntries } from './datasets/dataset-zip.js';
import { ReadableAnswers } from './export-readable.js';
import type { CategorySchema } from '../../schemas/category-schema.js';
import { loadProject } from '../identity/project-access.js';
import { projectSettings, projectStorage } from '../projects/project-view.js';
import { withoutPatientTags } from '../../shared/patient-tags.js';
import { parseJson } from '../../stored-json.js';
import { folderPrefix, storageUrlSigner } from '../storages/storage.service.js';

/*
 * GET /export and /exportV3. Synchronous on purpose: the zip is streamed from the database to
 * disk before the answer, so `exportPath` works the moment the client reads it (the Python
 * client downloads it at once and has no notion of "not ready yet"). The database is read in
 * pages and the file written as a stream, so memory stays flat; time grows with the project
 * (see docs/benchmarks.md). With `exportStorageEnabled` the finished zip is then uploaded to the
 * project's export storage and the link is that storage's signed URL.
 */

export async function createExport(
  ctx: AppContext,
  p: Principal,
  q: ExportQuery,
  /** The address a download link of ours starts with (http/link-base.ts). */
  linkBase = ctx.config.publicUrl,
): Promise<{ exportPath: string; storage?: StoredExport }> {
  const db = ctx.store.db;
  const { row } = await loadProject(db, p, q.project, 'manage');
  const stages = parseJson<Stage[]>(row.stages, []);
  const plan = exportPlan(q, stages, await listBatches(db, row.id));
  if (plan.format === 'kitti' && row.type !== 'pct') {
    throw invalidField('format', `kitti exports point-cloud projects (type pct); this project is of type ${row.type}`);
  }
  const target = await exportTarget(ctx, row);

  const dir = exportsDir(ctx.config.dataDir);
  await fs.promises.mkdir(dir, { recursive: true });
  const now = ctx.clock.now();
  await sweepExports(dir, Date.now());
  const exportId = newId(now);
  const fileName = exportFileName(exportId);
  const file = path.join(dir, fileName);
  const started = Date.now();
  const bytes = await writeExportZip(ctx, { row, plan, stages, linkBase }, file, new Date(now));
  ctx.log.info(
    { projectId: row.id, exportId, type: plan.type, format: plan.format, bytes, ms: Date.now() - started },
    'export written',
  );

  const made = { id: exportId, createdAt: new Date(now).toISOString(), type: plan.type, format: plan.format, bytes };
  if (target.kind === 'local') {
    const exportPath = signExportLink(linkBase, ctx.secretKey, fileName, now);
    await recordExport(ctx, p, row.id, q, { ...made, ms: Date.now() - started, place: { fileName } });
    return { exportPath };
  }
  try {
    const exportPath = await uploadToStorage(ctx, row, target, file, fileName);
    const storage = { storageId: target.storageId, bucket: target.bucket, key: `${target.folder}${fileName}` };
    await recordExport(ctx, p, row.id, q, { ...made, ms: Date.now() - started, place: { storage } });
    // Where the zip now lives, beside the (expiring) link: pipelines that read the bucket need it.
    return { exportPath, storage };
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/**
 * json and ndjson: a zip of one entry, `tasks.json`, `issues.ndjson`... (clients read the first
 * entry); a dataset format: the format's files and a README.
 */
async function writeExportZip(
  ctx: AppContext,
  { row, plan, stages, linkBase }: { row: ProjectRow; plan: ExportPlan; stages: Stage[]; linkBase: string },
  file: string,
  mtime: Date,
): Promise<number> {
  const db = ctx.store.db;
  const schema = parseJson<CategorySchema>(row.category_schema, { tools: [], classifications: [], relations: [] });
  if (plan.format === 'json' || plan.format === 'ndjson') {
    const readable = new ReadableAnswers(schema, { segmentationPoints: plan.includeSegmentationPoints });
    // Links in the items live as long as the export's own link: a day.
    const maskOf = (taskId: string) => (objectId: string) =>
      signMaskLink(ctx, linkBase, taskId, objectId, EXPORT_LINK_SECONDS);
    const writer = {
      fields: (text: string, taskId?: string) =>
        readable.fields(text, plan.includeMask && taskId !== undefined ? maskOf(taskId) : undefined),
      links: taskLinks(ctx, EXPORT_LINK_SECONDS),
      // A video's tracks expanded to every frame, unless only the keyframes are asked for.
      parts: plan.includeOnlyKeyFrames ? undefined : expandedAnswers(readable),
      metadata: projectSettings(row).patientTagsExported === true ? undefined : withoutPatientTags,
    };
    const pages =
      plan.type === 'task'
        ? taskPages(db, row.id, plan, stages, undefined, writer)
        : issuePages(db, row.id, plan, stages);
    const format = plan.format;
    return (await writeSingleEntryZip(file, `${plan.type}s.${format}`, framed(pages, format), mtime)).bytes;
  }
  return writeZipEntries(
    file,
    datasetEntries(ctx, plan.format, { projectId: row.id, ...plan }, schema, plan.includeOnlyKeyFrames),
    mtime,
  );
}

/** Where an export zip went in the project's export storage. */
export interface StoredExport {
  storageId: string;
  bucket: string;
  key: string;
}

type ExportTarget = { kind: 'local' } | { kind: 'storage'; storageId: string; bucket: string; folder: string };

/** Where the zip goes, checked before any work so a misconfigured project fails fast. */
async function exportTarget(ctx: AppContext, row: ProjectRow): Promise<ExportTarget> {
  const { enabled, storageId, bucket, path: storagePath } = projectStorage(row);
  if (!enabled) return { kind: 'local' };
  if (!storageId) {
    throw invalidField('exportStorageId', 'exportStorageEnabled is set but the project names no export storage');
  }
  if (!bucket) {
    throw invalidField('exportStorageBucket', 'exportStorageEnabled is set but the project names no bucket');
  }
  // Fails with 404 when the storage is unknown, deleted or of another organization.
  const signer = await storageUrlSigner(ctx, row.organization_id, storageId);
  signer.close();
  const folder = folderPrefix(storagePath);
  return { kind: 'storage', storageId, bucket, folder };
}

function uploadError(outcome: Exclude<UploadOutcome, { ok: true }>, bucket: string): AppError {
  const code = outcome.code ? ` (${outcome.code})` : '';
  if (outcome.status === 0) return new AppError('BAD_REQUEST', `the export storage could not be reached${code}`);
  if (outcome.status === 404) {
    return new AppError('NOT_FOUND', `bucket "${bucket}" of the export storage does not exist${code}`);
  }
  if (outcome.status === 401 || outcome.status === 403) {
    return new AppError('FORBIDDEN', `the export storage refused the upload${code}`);
  }
  return new AppError('BAD_REQUEST', `the export storage refused the upload with status ${outcome.status}${code}`);
}

async function uploadToStorage(
  ctx: AppContext,
  row: ProjectRow,
  target: Extract<ExportTarget, { kind: 'storage' }>,
  file: string,
  fileName: string,
): Promise<string> {
  const signer = await storageUrlSigner(ctx, row.organization_id, target.storageId);
  try {
    const ref = { bucket: target.bucket, key: `${target.folder}${fileName}` };
    const outcome = await putFileToSignedUrl(await signer.upload(ref), file);
    if (!outcome.ok) {
      ctx.log.warn(
        { projectId: row.id, storageId: target.storageId, status: outcome.status, code: outcome.code },
        'export upload failed',
      );
      throw uploadError(outcome, target.bucket);
    }
    return await signer.read(ref);
  } finally {
    signer.close();
  }
}

/** The local export a signed link names: 403 when tampered with or expired, 404 once swept. */
export async function openExportDownload(
  ctx: AppContext,
  params: ExportDownloadParams,
): Promise<{ stream: Readable; size: number; fileName: string }> {
  const check = checkExportLink(ctx.secretKey, params, ctx.clock.now());
  if (!check.ok) {
    throw new AppError(
      'FORBIDDEN',
      check.reason === 'expired'
        ? 'this export link has expired; export again for a new one'
        : 'the signature of this export link is not valid',
    );
  }
  const file = path.join(exportsDir(ctx.config.dataDir), check.file);
  try {
    const stat = await fs.promises.stat(file);
    return { stream: fs.createReadStream(file), size: stat.size, fileName: check.file };
  } catch {
    throw notFound('export file');
  }
}
