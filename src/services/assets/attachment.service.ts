import type { AppContext } from '../../context.js';
import { invalid, type FieldError } from '../../errors.js';
import type { AttachmentType } from '../../schemas/attachment.js';
import { chunked } from '../../store/chunks.js';
import type { Executor } from '../../store/db.js';
import * as assetRepo from '../../store/repositories/asset.repository.js';
import type { Principal } from '../../access.js';
import { MAX_URL_LENGTH } from './asset.service.js';
import { loadProject } from '../identity/project-access.js';

export interface AttachmentInput {
  type: AttachmentType;
  value: string;
}

export interface AssetAttachmentsInput {
  externalId?: string | undefined;
  data?: string | undefined;
  attachments: AttachmentInput[];
}

/** Extensions a media attachment's URL path must end with (any case; a query string may follow). */
const EXTENSIONS: Record<Exclude<AttachmentType, 'TEXT'>, string[]> = {
  IMAGE: ['.png', '.jpg', '.jpeg'],
  VIDEO: ['.mp4'],
};

export function attachmentError(a: AttachmentInput): string | undefined {
  if (a.type === 'TEXT') return a.value.trim() ? undefined : 'must not be blank';
  let url: URL;
  try {
    url = new URL(a.value);
  } catch {
    return 'must be an http(s) URL';
  }
  if (a.value.length > MAX_URL_LENGTH || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return 'must be an http(s) URL';
  }
  const allowed = EXTENSIONS[a.type];
  const path = url.pathname.toLowerCase();
  return allowed.some((ext) => path.endsWith(ext)) ? undefined : `must be the URL of a ${allowed.join(', ')} file`;
}

function checkInput(items: readonly AssetAttachmentsInput[]): void {
  const errors: FieldError[] = [];
  for (const [i, item] of items.entries()) {
    if (errors.length >= 50) break;
    if (item.externalId === undefined && item.data === undefined) {
      errors.push({ field: `attachments[${i}].externalId`, message: 'externalId or data is required' });
    }
    item.attachments.forEach((a, j) => {
      const problem = attachmentError(a);
      if (problem) errors.push({ field: `attachments[${i}].attachments[${j}].value`, message: problem });
    });
  }
  if (errors.length) throw invalid(errors);
}

interface AssetRef {
  id: string;
  external_id: string;
  data: string;
  attachments: string;
}

/** The project's live assets whose `column` is one of `values`, locked on PostgreSQL. */
async function assetsBy(
  trx: Executor,
  engine: string,
  projectId: string,
  column: 'external_id' | 'data',
  values: string[],
): Promise<AssetRef[]> {
  const out: AssetRef[] = [];
  for (const part of chunked([...new Set(values)])) {
    // Locked so that two requests appending to one asset never lose each other's attachments.
    out.push(...(await assetRepo.lockAssetsBy(trx, engine, projectId, column, part)));
  }
  return out;
}

/**
 * POST /attachments: appends attachments to assets found by `externalId`, then by `data`; all
 * or nothing. An attachment equal (type and value) to one the asset already has is not added
 * again, so re-sending a request is harmless.
 */
export async function addAttachments(
  ctx: AppContext,
  p: Principal,
  input: { project: string; attachments: AssetAttachmentsInput[] },
) {
  checkInput(input.attachments);
  return ctx.store.db.transaction().execute(async (trx) => {
    const { row } = await loadProject(trx, p, input.project, 'import');
    const items = input.attachments;
    const byExternal = new Map<string, AssetRef>();
    const externalIds = items.flatMap((x) => (x.externalId === undefined ? [] : [x.externalId]));
    for (const a of await assetsBy(trx, ctx.store.engine, row.id, 'external_id', externalIds)) {
      if (!byExternal.has(a.external_id)) byExternal.set(a.external_id, a);
    }
    const unmatched = items.filter((x) => x.externalId === undefined || !byExternal.has(x.externalId));
    const datas = unmatched.flatMap((x) => (x.data === undefined ? [] : [x.data]));
    const byData = new Map<string, AssetRef>();
    for (const a of await assetsBy(trx, ctx.store.engine, row.id, 'data', datas)) {
      if (!byData.has(a.data)) byData.set(a.data, a);
    }

    const errors: FieldError[] = [];
    const changed = new Map<string, { ref: AssetRef; list: AttachmentInput[]; keys: Set<string> }>();
    let added = 0;
    let duplicates = 0;
    for (const [i, item] of items.entries()) {
      const ref =
        (item.externalId !== undefined ? byExternal.get(item.externalId) : undefined) ??
        (item.data !== undefined ? byData.get(item.data) : undefined);
      if (!ref) {
        const field = item.externalId !== undefined ? 'externalId' : 'data';
        if (errors.length < 50) {
          errors.push({ field: `attachments[${i}].${field}`, message: `no asset with this ${field} in the project` });
        }
        continue;
      }
      let entry = changed.get(ref.id);
      if (!entry) {
        const list = JSON.parse(ref.attachments) as AttachmentInput[];
        entry = { ref, list, keys: new Set(list.map((a) => `${a.type}\n${a.value}`)) };
        changed.set(ref.id, entry);
      }
      for (const a of item.attachments) {
        const key = `${a.type}\n${a.value}`;
        if (entry.keys.has(key)) {
          duplicates += 1;
          continue;
        }
        entry.keys.add(key);
        entry.list.push({ type: a.type, value: a.value });
        added += 1;
      }
    }
    if (errors.length) throw invalid(errors);
    for (const { ref, list } of changed.values()) {
      await assetRepo.setAttachments(trx, ref.id, JSON.stringify(list));
    }
    return { assets: changed.size, attachments: added, duplicates };
  });
}
