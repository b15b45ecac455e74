import { SecretBox } from '../../adapters/crypto/secret-box.js';
import { ipLiteral, isPublicAddress } from '../../adapters/webhook/address-policy.js';
import { isoNow } from '../../adapters/clock.js';
import { audit } from '../audit/audit.service.js';
import type { AppContext } from '../../context.js';
import { conflict, invalidField, notFound } from '../../errors.js';
import { isId, newId } from '../../ids.js';
import type { PluginCreateRequest } from '../../schemas/plugin.js';
import type { Stage } from '../../schemas/stage.js';
import type { Executor } from '../../store/db.js';
import * as repo from '../../store/repositories/plugin.repository.js';
import type { PluginRow } from '../../store/repositories/plugin.repository.js';
import { liveProjectStagesContaining } from '../../store/repositories/project.repository.js';
import { demandOrgAdmin, type Principal } from '../../access.js';
import { parseJson } from '../../stored-json.js';

/**
 * Plugins are registered per organization: owners and admins register and delete them, every
 * member may list them (to pick one for a Plugin stage). The secret is sealed at rest under a
 * key of its own purpose and never answered, logged or put in a job payload.
 */

export const PLUGIN_SECRETS_PURPOSE = 'plugin-secrets';
/** Binds a sealed secret to its plugin row: copied into another row, it does not open. */
export const pluginSecretAad = (pluginId: string) => `plugins/${pluginId}`;

const boxes = new WeakMap<Buffer, SecretBox>();
function box(key: Buffer): SecretBox {
  let b = boxes.get(key);
  if (!b) boxes.set(key, (b = new SecretBox(key, PLUGIN_SECRETS_PURPOSE)));
  return b;
}

/** The plugin's secret in clear, for the Secret header of a call. Throws SecretBoxError. */
export function openPluginSecret(ctx: AppContext, row: PluginRow): string {
  if (row.secret === null) throw new Error('the plugin has no secret (deleted)');
  return box(ctx.secretKey).open(row.secret, pluginSecretAad(row.id));
}

/** The Plugin resource: everything but the secret. */
export function pluginView(row: PluginRow): Record<string, unknown> {
  return {
    _id: row.id,
    name: row.name,
    url: row.url,
    ...(row.assist_url ? { assistUrl: row.assist_url } : {}),
    organization: row.organization_id,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

function checkUrl(ctx: AppContext, raw: string, field = 'url'): string {
  const url = raw.trim();
  if (!URL.canParse(url)) throw invalidField(field, 'must be an http(s) URL');
  const { protocol, hostname } = new URL(url);
  if ((protocol !== 'http:' && protocol !== 'https:') || hostname === '') {
    throw invalidField(field, 'must be an http(s) URL');
  }
  // Names are judged when a call resolves them (the address may change); a literal is known now.
  const literal = ipLiteral(hostname);
  const refused = literal !== undefined ? !isPublicAddress(literal) : hostname.toLowerCase() === 'localhost';
  if (refused && !ctx.config.webhookAllowPrivate) {
    throw invalidField(field, 'is not a public address (set ANNOTARY_WEBHOOK_ALLOW_PRIVATE=true to allow it)');
  }
  return url;
}

export async function createPlugin(ctx: AppContext, p: Principal, body: PluginCreateRequest) {
  demandOrgAdmin(p);
  const name = body.name.trim();
  if (!name) throw invalidField('name', 'must not be blank');
  const url = checkUrl(ctx, body.url);
  const assistUrl = body.assistUrl === undefined ? null : checkUrl(ctx, body.assistUrl, 'assistUrl');
  const id = newId(ctx.clock.now());
  const row: PluginRow = {
    id,
    organization_id: p.orgId,
    name,
    url,
    secret: box(ctx.secretKey).seal(body.secret, pluginSecretAad(id)),
    assist_url: assistUrl,
    created_by: p.email,
    created_at: isoNow(ctx.clock),
    deleted: 0,
    deleted_at: null,
  };
  await ctx.store.db.transaction().execute(async (trx) => {
    await repo.insertPlugin(trx, row);
    const fields = ['name', 'url', 'secret', ...(assistUrl ? ['assistUrl'] : [])];
    await audit(trx, ctx.clock, p, { operation: 'plugin.create', targetType: 'plugin', targetId: id, fields });
  });
  ctx.log.info({ pluginId: id }, 'plugin registered');
  return pluginView(row);
}

export async function listPlugins(ctx: AppContext, p: Principal, q: { page?: number; limit?: number }) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 10;
  const { rows, total } = await repo.listPlugins(ctx.store.db, { orgId: p.orgId, offset: (page - 1) * limit, limit });
  return { plugins: rows.map(pluginView), total };
}

/** Plugin stages of every live project of the organization that name `pluginId`. */
async function projectsUsing(db: Executor, orgId: string, pluginId: string): Promise<string[]> {
  const rows = await liveProjectStagesContaining(db, orgId, pluginId);
  return rows
    .filter((r) => parseJson<Stage[]>(r.stages, []).some((s) => s.type === 'Plugin' && s.pluginId === pluginId))
    .map((r) => r.id);
}

/** Soft delete; refused (409) while a workflow still names the plugin. */
export async function deletePlugin(ctx: AppContext, p: Principal, pluginId: string) {
  demandOrgAdmin(p);
  return ctx.store.db.transaction().execute(async (trx) => {
    const row = isId(pluginId) ? await repo.findPlugin(trx, p.orgId, pluginId) : undefined;
    if (!row) throw notFound('plugin');
    const users = await projectsUsing(trx, p.orgId, row.id);
    if (users.length) {
      throw conflict(`the plugin is used by Plugin stages of ${users.length} project(s): ${users.join(', ')}`);
    }
    await repo.softDeletePlugin(trx, row.id, isoNow(ctx.clock));
    await audit(trx, ctx.clock, p, { operation: 'plugin.delete', targetType: 'plugin', targetId: row.id });
    ctx.log.info({ pluginId: row.id }, 'plugin deleted');
    return { plugin: { ...pluginView(row), deleted: true } };
  });
}
