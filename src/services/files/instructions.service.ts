import { extensionOf, FileTooLargeError, safeFileName } from '../../adapters/file-store/file-store.js';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import type { Principal } from '../../access.js';
import { bucketOf, LONG_LIVED_SECONDS, newFileKey, storageObjectLink } from './file.service.js';
import { fileStoreOf, signedFileUrl } from './file-url.js';
import { updateProject } from '../projects/project.service.js';
import { loadProject } from '../identity/project-access.js';
import { copyToStorage } from './storage-upload.js';
import { type FormSource, payloadTooLarge, readForm } from './upload-form.js';

/** What labelers' browsers show inline: documents, images, text, video. */
export const INSTRUCTION_EXTENSIONS = ['pdf', 'png', 'jpg', 'jpeg', 'txt', 'md', 'html', 'mp4'] as const;

export interface InstructionsTarget {
  storageId?: string | undefined;
  bucket?: string | undefined;
}

/**
 * POST /project/{id}/instructions: stores the multipart `file` and points the project's
 * `instructions` setting at a long-lived link that serves it. Without a storage the file
 * stays in our file store; with `storageId` and `bucket` (query [client] or form fields) it is
 * copied into that storage and the link signs a fresh read URL of the object on every use.
 * Nothing is kept when any step fails.
 */
export async function uploadInstructions(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  form: FormSource,
  query: InstructionsTarget,
  /** The address the stored link starts with (http/link-base.ts). */
  base = ctx.config.publicUrl,
) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'manage');
  const store = fileStoreOf(ctx);
  const limit = ctx.config.uploadLimit;
  let stored: { key: string; size: number } | undefined;
  let keepLocal = false;
  try {
    const fields = await readForm(form, 'file', async ({ filename, stream }) => {
      const name = safeFileName(filename);
      if (!(INSTRUCTION_EXTENSIONS as readonly string[]).includes(extensionOf(name))) {
        stream.destroy();
        throw invalidField('file', `must be a file ending in .${INSTRUCTION_EXTENSIONS.join(', .')}`);
      }
      const key = newFileKey(row.id, 'instructions', name);
      try {
        stored = { key, ...(await store.put(key, stream, { maxBytes: limit })) };
      } catch (err) {
        throw err instanceof FileTooLargeError ? payloadTooLarge('file', limit) : err;
      }
    });
    if (!stored) throw invalidField('file', 'is required: send the instructions as the multipart file "file"');
    if (stored.size === 0) throw invalidField('file', 'is empty');
    const storageId = query.storageId ?? (fields.get('storageId') || undefined);
    let url: string;
    if (storageId) {
      const bucket = bucketOf({ bucket: query.bucket ?? (fields.get('bucket') || undefined) }, storageId, row);
      await copyToStorage(ctx, p.orgId, { storageId, bucket, key: stored.key }, stored.key);
      url = storageObjectLink(ctx, p.orgId, storageId, bucket, stored.key, base);
    } else {
      url = signedFileUrl(ctx, 'GET', stored.key, LONG_LIVED_SECONDS, base);
      keepLocal = true;
    }
    const project = await updateProject(ctx, p, row.id, { instructions: url });
    return { instructions: url, project };
  } catch (err) {
    keepLocal = false;
    throw err;
  } finally {
    // The local copy stays only when it is what the link serves and the project points at it.
    if (stored && !keepLocal) await store.delete(stored.key);
  }
}
