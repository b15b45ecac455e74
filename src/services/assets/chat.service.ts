import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { safeFileName } from '../../adapters/file-store/file-store.js';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import type { Principal } from '../../access.js';
import { importAssets } from './asset-import.service.js';
import { parseConversations } from './chat-format.js';
import { LONG_LIVED_SECONDS } from '../files/file.service.js';
import { fileStoreOf, signedFileUrl } from '../files/file-url.js';
import { loadProject } from '../identity/project-access.js';
import { type FormSource, readBounded, readForm } from '../files/upload-form.js';

/** The original service's limit on one chat upload. */
export const MAX_CONVERSATIONS = 10_000;
export const NAMING_STRATEGIES = ['random', 'index', 'fileName'] as const;
type NamingStrategy = (typeof NAMING_STRATEGIES)[number];

/** Conversation files written at once: fsyncs overlap, the disk is not flooded. */
const WRITE_CONCURRENCY = 16;

/** `random`, or the client's JSON `{"type": "random"}` [client]; any case. */
function parseNaming(raw: string | undefined): NamingStrategy {
  let value = raw?.trim() ?? '';
  if (value.startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as { type?: unknown };
      value = typeof parsed.type === 'string' ? parsed.type : '';
    } catch {
      value = '';
    }
  }
  if (value === '') return 'random';
  const hit = NAMING_STRATEGIES.find((s) => s.toLowerCase() === value.toLowerCase());
  if (!hit) throw invalidField('namingStrategy', `must be one of ${NAMING_STRATEGIES.join(', ')} (or {"type": ...})`);
  return hit;
}

function parseInteger(raw: string | undefined, field: string, min: number, max: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw invalidField(field, `must be a whole number from ${min} to ${max}`);
  return n;
}

/** One name per conversation: the file's name, the asset's externalId. */
function namesFor(count: number, strategy: NamingStrategy, fileName: string | undefined): string[] {
  if (strategy === 'random') return Array.from({ length: count }, () => randomBytes(12).toString('hex'));
  let base = 'conversation';
  if (strategy === 'fileName') {
    base = safeFileName(fileName ?? '').replace(/\.[^.]*$/, '');
    if (!base) throw invalidField('namingStrategy', 'fileName needs a conversations file with a usable name');
  }
  return Array.from({ length: count }, (_, i) => `${base}-${i + 1}`);
}

/**
 * POST /project/{id}/chat: one asset (and its task) per conversation. Conversations come from
 * the `file` (JSON array, one JSON object, or NDJSON; see chat-format.ts) or, without a file,
 * `numberOfConversations` empty ones. Each is stored as `<name>.json` in the file store and
 * imported with a long-lived link to it as its `data`. All or nothing: a failed import
 * removes the files written.
 */
export async function createChatAssets(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  form: FormSource,
  /** The address the assets' links start with (http/link-base.ts). */
  base = ctx.config.publicUrl,
) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'import');
  // A conversations file is one JSON document: the JSON body limit applies, not the upload one.
  const fileLimit = Math.min(ctx.config.uploadLimit, ctx.config.bodyLimit);
  let file: { name: string; text: string } | undefined;
  const fields = await readForm(form, 'file', async ({ filename, stream }) => {
    file = { name: filename, text: (await readBounded(stream, fileLimit, 'file')).toString('utf8') };
  });
  const textFile = fields.get('file');
  if (!file && textFile !== undefined) file = { name: '', text: textFile };
  if (fields.get('storageId')) {
    throw invalidField(
      'storageId',
      "chat conversations are kept in the server's file store; a storage is not supported yet",
    );
  }
  const naming = parseNaming(fields.get('namingStrategy'));
  const priority = parseInteger(fields.get('priority'), 'priority', -1000, 1000);
  let conversations: unknown[];
  if (file) conversations = parseConversations(file.text, MAX_CONVERSATIONS);
  else {
    const count = parseInteger(fields.get('numberOfConversations'), 'numberOfConversations', 1, MAX_CONVERSATIONS);
    if (count === undefined)
      throw invalidField('numberOfConversations', 'is required when no conversations file is sent');
    conversations = Array.from({ length: count }, () => ({ messages: [] }));
  }
  const names = namesFor(conversations.length, naming, file?.name);

  const store = fileStoreOf(ctx);
  const folder = `${row.id}/conversations/${randomBytes(12).toString('hex')}`;
  const keys = names.map((name) => `${folder}/${name}.json`);
  try {
    for (let i = 0; i < keys.length; i += WRITE_CONCURRENCY) {
      const slice = keys.slice(i, i + WRITE_CONCURRENCY);
      // allSettled: no write may still be running when a failure removes the files.
      const results = await Promise.allSettled(
        slice.map((key, j) => store.put(key, Readable.from([Buffer.from(JSON.stringify(conversations[i + j]))]))),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
    const assets = keys.map((key, i) => ({
      data: signedFileUrl(ctx, 'GET', key, LONG_LIVED_SECONDS, base),
      externalId: names[i],
    }));
    const result = await importAssets(ctx, p, row.id, { assets, priority });
    return { assets: { assetsCreated: result.assetsCreated } };
  } catch (err) {
    await Promise.all(keys.map((key) => store.delete(key)));
    throw err;
  }
}
