import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { newId } from '../../ids.js';
import type { Principal } from '../../access.js';
import type { AssetInput } from './asset.service.js';
import { importAssets } from './asset-import.service.js';
import { LONG_LIVED_SECONDS } from '../files/file.service.js';
import { fileStoreOf, signedFileUrl } from '../files/file-url.js';
import { loadProject } from '../identity/project-access.js';

/** Content files written at once: fsyncs overlap, the disk is not flooded. */
const WRITE_CONCURRENCY = 16;

/**
 * A `data` that is a link, not content: an http(s) URL alone. The Python client's `upload_files`
 * sends the upload URL of each file it PUT, with `uploadLocal: "true"` [client].
 */
function isLink(data: string): boolean {
  if (data.length > 4096 || !/^https?:\/\/\S+$/i.test(data)) return false;
  return URL.canParse(data);
}

/**
 * POST /project/{id}/cloud with `uploadLocal: true` [client]: the client uploaded the assets.
 * A `data` that is an http(s) URL is a link to a file it uploaded (`upload_files`) and is
 * imported as any link; any other `data` is the asset's content (the client builds it, typically
 * from an asset builder template). Each content is stored in the server's file store as
 * `<id>.html` and the asset is imported with a long-lived signed link to it as its `data` (its
 * `externalId`, when not given, is that file name). Per-asset `classifications` become the new
 * task's pre-label, as on any import. All or nothing: a failed import removes the files written.
 */
export async function importInlineAssets(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  input: { assets: AssetInput[]; priority?: number | undefined; batches?: string[] | undefined },
  /** The address the assets' links start with (http/link-base.ts). */
  base = ctx.config.publicUrl,
) {
  // 404 / 403 before anything is written.
  const { row } = await loadProject(ctx.store.db, p, projectId, 'import');
  const store = fileStoreOf(ctx);
  const folder = `${row.id}/assets/${randomBytes(12).toString('hex')}`;
  // One key per content asset; links keep their place with no key.
  const keys = input.assets.map((a) => (isLink(a.data) ? undefined : `${folder}/${newId(ctx.clock.now())}.html`));
  const written = keys.flatMap((key, i) => (key === undefined ? [] : [{ key, data: input.assets[i]?.data ?? '' }]));
  try {
    for (let i = 0; i < written.length; i += WRITE_CONCURRENCY) {
      const slice = written.slice(i, i + WRITE_CONCURRENCY);
      // allSettled: no write may still be running when a failure removes the files.
      const results = await Promise.allSettled(
        slice.map(({ key, data }) => store.put(key, Readable.from([Buffer.from(data, 'utf8')]))),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    const assets = input.assets.map((a, i) => {
      const key = keys[i];
      return key === undefined ? a : { ...a, data: signedFileUrl(ctx, 'GET', key, LONG_LIVED_SECONDS, base) };
    });
    return await importAssets(ctx, p, row.id, { ...input, assets });
  } catch (err) {
    await Promise.all(written.map(({ key }) => store.delete(key)));
    throw err;
  }
}
