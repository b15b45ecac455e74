import type { WebhookSender } from '../../adapters/webhook/webhook-sender.js';
import type { AppContext } from '../../context.js';
import { AppError, type FieldError, invalid, invalidField } from '../../errors.js';
import { isId } from '../../ids.js';
import type { AssistRequest } from '../../schemas/assist.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import { parseJson } from '../../stored-json.js';
import { checkSegmentation } from '../../workflow/zones.js';
import { freshFileUrl } from '../files/file-url.js';
import type { Principal } from '../../access.js';
import { assetImageSize, pngSize } from '../files/layers/brush-layer.js';
import { taskToWork } from '../tasks/work-access.js';
import { PLUGIN_USER_AGENT } from './plugin-call.js';
import { answerOf } from './outbound-answer.js';
import { openPluginSecret } from './plugin.service.js';

/**
 * The editor's Assist: the labeler's points inside and outside an object (and a box) go, with the
 * image's link, to a plugin of the organization that answers interactive requests. The server
 * makes the call, signed with the plugin's Secret header as Plugin stage calls are, under the same
 * address rule and a deadline; the plugin's answer (a mask PNG or zones) is checked and handed to
 * the editor as a candidate. Nothing is stored: the labeler accepts the candidate into the answer.
 */

/** Largest answer read from a plugin (a mask PNG of a large image, base64 inside JSON). */
export const MAX_ASSIST_ANSWER_BYTES = 64 * 1024 * 1024;
/** How long the image link handed to the plugin lives, when it is one of ours. */
const IMAGE_LINK_SECONDS = 600;

type Point = number[];
const upstream = (message: string) => new AppError('UPSTREAM', message);

function checkPoints(
  field: string,
  points: readonly Point[] | undefined,
  size: { width: number; height: number } | undefined,
  errors: FieldError[],
) {
  (points ?? []).forEach(([x, y], i) => {
    const bad = !Number.isFinite(x) || !Number.isFinite(y) || x! < 0 || y! < 0;
    const outside = size !== undefined && (x! > size.width || y! > size.height);
    if (bad || outside) errors.push({ field: `${field}[${i}]`, message: 'must be a point inside the image' });
  });
}

function checkRequest(body: AssistRequest, size: { width: number; height: number } | undefined) {
  const errors: FieldError[] = [];
  checkPoints('positive', body.positive, size, errors);
  checkPoints('negative', body.negative, size, errors);
  if (body.box) {
    const [x1, y1, x2, y2] = body.box as [number, number, number, number];
    checkPoints('box', [[x1, y1]], size, errors);
    checkPoints('box', [[x2, y2]], size, errors);
    if (!(x2 > x1 && y2 > y1))
      errors.push({ field: 'box', message: 'must be [x1, y1, x2, y2] with x2 > x1 and y2 > y1' });
  }
  if (!body.positive?.length && !body.box) {
    errors.push({ field: 'positive', message: 'needs at least one point inside the object (or a box)' });
  }
  if (errors.length) throw invalid(errors.map((e) => (e.field.startsWith('box[') ? { ...e, field: 'box' } : e)));
}

/** The plugin's answer as the editor takes it: a PNG mask of the image's size, or checked zones. */
function readAnswer(body: Buffer, size: { width: number; height: number } | undefined) {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw upstream('the assist plugin did not answer JSON');
  }
  const { mask, zones } = (json ?? {}) as { mask?: unknown; zones?: unknown };
  if (typeof mask === 'string') {
    const png = Buffer.from(mask.replace(/^data:image\/png;base64,/, ''), 'base64');
    const got = pngSize(png);
    if (!got) throw upstream('the assist plugin answered a mask that is not a PNG');
    if (size && (got.width !== size.width || got.height !== size.height)) {
      throw upstream(
        `the assist plugin answered a ${got.width}x${got.height} mask; the image is ${size.width}x${size.height}`,
      );
    }
    return { mask: `data:image/png;base64,${png.toString('base64')}` };
  }
  if (Array.isArray(zones)) {
    if (zones.length === 0) return { zones: [] };
    const checked = checkSegmentation({ zones }, 'zones');
    if (!checked.value) {
      const first = checked.errors[0];
      throw upstream(`the assist plugin answered zones that are not valid (${first?.field}: ${first?.message})`);
    }
    return { zones: checked.value.zones };
  }
  throw upstream('the assist plugin answered neither a mask nor zones');
}

export async function assist(
  ctx: AppContext,
  sender: WebhookSender,
  p: Principal,
  taskId: string,
  body: AssistRequest,
) {
  const { task, project, asset } = await taskToWork(ctx, p, taskId);
  const plugin = isId(body.pluginId) ? await repo.findPlugin(ctx.store.db, p.orgId, body.pluginId) : undefined;
  if (!plugin) throw invalidField('pluginId', 'no plugin of that id is registered to the organization');
  if (!plugin.assist_url) throw invalidField('pluginId', 'the plugin answers no Assist requests (it has no assistUrl)');
  const tools = parseJson<{ tools?: { schemaId?: string; tool?: string }[] }>(project.row.category_schema, {}).tools;
  const tool = body.schemaId === undefined ? undefined : tools?.find((t) => t.schemaId === body.schemaId);
  if (body.schemaId !== undefined && (!tool || (tool.tool !== 'segmentation' && tool.tool !== 'brush'))) {
    throw invalidField('schemaId', 'must name a segmentation or brush tool of the ontology');
  }
  const image = assetImageSize(asset?.metadata ?? null);
  checkRequest(body, image);
  const url = freshFileUrl(ctx, asset?.data ?? null, IMAGE_LINK_SECONDS);
  if (!url) throw invalidField('taskId', 'the task has no image');
  let secret: string;
  try {
    secret = openPluginSecret(ctx, plugin);
  } catch {
    throw upstream('the plugin secret cannot be opened (was the server key changed?)');
  }
  const payload = {
    taskId: task.id,
    projectId: task.project_id,
    orgId: p.orgId,
    schemaId: body.schemaId ?? null,
    tool: tool?.tool ?? null,
    image: { url, ...(image ?? {}) },
    positive: body.positive ?? [],
    negative: body.negative ?? [],
    box: body.box ?? null,
  };
  const answer = await answerOf(
    ctx,
    sender,
    {
      url: plugin.assist_url,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': PLUGIN_USER_AGENT, Secret: secret },
      body: Buffer.from(JSON.stringify(payload)),
      timeoutMs: ctx.config.assistTimeoutMs,
      readBodyUpTo: MAX_ASSIST_ANSWER_BYTES,
    },
    'the assist plugin',
    { taskId: task.id, pluginId: plugin.id },
  );
  return { assist: readAnswer(answer, image) };
}
