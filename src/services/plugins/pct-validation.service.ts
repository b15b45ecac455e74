import type { WebhookSender } from '../../adapters/webhook/webhook-sender.js';
import type { AppContext } from '../../context.js';
import { AppError, conflict, invalid, invalidField } from '../../errors.js';
import type { PctValidationRequest } from '../../schemas/pct-validation.js';
import { expandTrack, objectKey, pageOf, questionKey, type WireEntry, wireTracks } from '../../shared/tracks.js';
import { parseJson } from '../../stored-json.js';
import { type AnswerInput, frameCountOf, framesOfAsset, validateAnswer } from '../../workflow/answer.js';
import { pctRules } from '../../workflow/pct-answer.js';
import { freshFileUrl } from '../files/file-url.js';
import { answerOf } from './outbound-answer.js';
import { openPctSecret } from '../projects/pct-validation-secret.js';
import type { Principal } from '../../access.js';
import { taskToWork } from '../tasks/work-access.js';

/**
 * A pct project's external validation (`pctConfig.externalValidation`): the editor hands the
 * labeler's answer to the server, which sends it with the frames' links to the project's
 * `apiUrl` (under the webhooks' address rule, with a deadline, and the Secret header when the
 * project set one, as plugin calls carry theirs) and answers the validator's verdict. The frames
 * checked are every frame, the one `frameNumbers` names (`specificFrame`), or the editor's
 * current one (`singleFrame`). Nothing is stored: the editor shows the verdict before submitting.
 */

export const PCT_VALIDATION_USER_AGENT = 'Annotary-PctValidation/1';
/** Largest verdict read from a validator. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Most errors of a verdict answered, and the longest message kept. */
const MAX_ERRORS = 1000;
const MAX_MESSAGE = 2000;
/** How long the frame links handed to the validator live, when they are ours. */
const LINK_SECONDS = 600;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const upstream = (message: string) => new AppError('UPSTREAM', message);
const EXT = 'pctConfig.externalValidation';

/** The frames the project's settings send for checking. */
function framesToCheck(ext: Rec, frameTotal: number, frame: number | undefined): number[] {
  const last = frameTotal - 1;
  if (ext['specificFrame'] === true) {
    const n = ext['frameNumbers'];
    if (typeof n !== 'number') throw conflict(`${EXT}.frameNumbers is not set: the project checks one specific frame`);
    if (n > last) throw conflict(`${EXT}.frameNumbers is frame ${n}; the asset's frames are 0 to ${last}`);
    return [n];
  }
  if (ext['singleFrame'] === true) {
    if (frame === undefined) throw invalidField('frame', 'is required: the project checks the frame in view');
    if (frame > last) throw invalidField('frame', `must be a frame of the asset (0 to ${last})`);
    return [frame];
  }
  return Array.from({ length: frameTotal }, (_, i) => i);
}

/** Entries shown on the frames checked (tracks expanded), and the entries that hold for the whole asset. */
function onFrames(entries: readonly WireEntry[], keyOf: typeof objectKey, frames: Set<number>, last: number) {
  const { tracks, whole } = wireTracks(entries, keyOf);
  const out: WireEntry[] = [...whole];
  for (const track of tracks) {
    for (const e of expandTrack(track.entries, last)) {
      if (frames.has(pageOf(e) as number) && e.interpolationStopped !== true) out.push(e);
    }
  }
  return out;
}

/** The validator's verdict as the editor shows it, or a 502 saying what was wrong with it. */
function readVerdict(body: Buffer) {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw upstream('the external validator did not answer JSON');
  }
  if (!isRec(json) || typeof json['valid'] !== 'boolean') {
    throw upstream('the external validator answered no "valid": true or false');
  }
  const raw = json['errors'] ?? [];
  if (!Array.isArray(raw)) throw upstream('the external validator answered "errors" that is not a list');
  const errors = raw.slice(0, MAX_ERRORS).map((e) => {
    const item: Rec = isRec(e) ? e : { message: e };
    const message = typeof item['message'] === 'string' ? item['message'] : JSON.stringify(item['message'] ?? e);
    const out: Rec = { message: message.slice(0, MAX_MESSAGE) };
    if (Number.isInteger(item['frame']) && (item['frame'] as number) >= 0) out['frame'] = item['frame'];
    if (typeof item['objectId'] === 'string') out['objectId'] = item['objectId'].slice(0, 200);
    return out;
  });
  const message = typeof json['message'] === 'string' ? json['message'].slice(0, MAX_MESSAGE) : undefined;
  return { valid: json['valid'], errors, ...(message !== undefined ? { message } : {}) };
}

export async function validatePct(
  ctx: AppContext,
  sender: WebhookSender,
  p: Principal,
  taskId: string,
  body: PctValidationRequest,
) {
  const { task, project, asset } = await taskToWork(ctx, p, taskId);
  if (project.row.type !== 'pct') throw conflict('the project is not a point-cloud (pct) project');
  const config = parseJson<Rec>(project.row.pct_config, {});
  const ext = isRec(config['externalValidation']) ? config['externalValidation'] : {};
  const apiUrl = typeof ext['apiUrl'] === 'string' ? ext['apiUrl'] : '';
  if (ext['enabled'] !== true || apiUrl === '') {
    throw conflict(`the project has no external validation (${EXT}.enabled and apiUrl)`);
  }
  const dataset = parseJson<unknown[]>(asset?.dataset ?? null, []).filter((u): u is string => typeof u === 'string');
  const frameTotal = frameCountOf(asset) ?? 0;
  if (frameTotal < 1) throw conflict('the task has no lidar frames');
  const frames = framesToCheck(ext, frameTotal, body.frame);

  // The answer is held to the rules of a save (not a submit's): what is sent is well formed.
  const schema = parseJson(project.row.category_schema, { tools: [], classifications: [], relations: [] });
  const checked = validateAnswer((body.answer ?? parseJson<AnswerInput>(task.answer, {})) as AnswerInput, schema, {
    submit: false,
    frames: framesOfAsset(asset?.metadata),
    pct: pctRules(project.row.type, project.row.pct_config, asset?.metadata),
  });
  if (checked.errors.length) throw invalid(checked.errors);
  const answer = checked.value as unknown as Rec;
  const wanted = new Set(frames);
  const last = frameTotal - 1;
  const list = (k: string) => (Array.isArray(answer[k]) ? (answer[k] as WireEntry[]) : []);

  const meta = parseJson<Rec>(asset?.metadata ?? null, {});
  const cameras = isRec(meta['pct']) && Array.isArray(meta['pct']['cameras']) ? meta['pct']['cameras'] : [];
  const link = (u: unknown) => (typeof u === 'string' ? freshFileUrl(ctx, u, LINK_SECONDS) : null);
  const payload = {
    taskId: task.id,
    projectId: task.project_id,
    orgId: p.orgId,
    externalId: task.external_id,
    frameTotal,
    frames: frames.map((f) => ({
      frame: f,
      lidar: link(dataset[f]),
      images: Object.fromEntries(
        cameras.filter(isRec).map((c) => [String(c['name']), link(Array.isArray(c['images']) ? c['images'][f] : null)]),
      ),
    })),
    answer: {
      tools: onFrames(list('tools'), objectKey, wanted, last),
      classifications: onFrames(list('classifications'), questionKey, wanted, last),
      relations: list('relations'),
      pointLabels: list('pointLabels').filter((l) => wanted.has(pageOf(l) ?? -1)),
    },
    categorySchema: schema,
  };

  let secret: string | undefined;
  try {
    secret = openPctSecret(ctx.secretKey, project.row.id, ext['sealedSecret']);
  } catch {
    throw upstream('the external validation secret cannot be opened (was the server key changed?)');
  }
  const reply = await answerOf(
    ctx,
    sender,
    {
      url: apiUrl,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': PCT_VALIDATION_USER_AGENT,
        ...(secret !== undefined ? { Secret: secret } : {}),
      },
      body: Buffer.from(JSON.stringify(payload)),
      timeoutMs: ctx.config.pctValidationTimeoutMs,
      readBodyUpTo: MAX_ANSWER_BYTES,
    },
    'the external validator',
    { taskId: task.id, projectId: task.project_id },
  );
  return { validation: { ...readVerdict(reply), frames } };
}
