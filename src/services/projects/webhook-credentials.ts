import { SecretBox } from '../../adapters/crypto/secret-box.js';
import type { Stage, WebhookConfig } from '../../schemas/stage.js';

/**
 * A Webhook stage's `secret` and `token` are write-only. They are stored sealed with the server
 * key (`sealedSecret`, `sealedToken` in the stored stages document, bound to project, stage and
 * field so a sealed value copied elsewhere does not open), never answered (`hasSecret` and
 * `hasToken` say whether one is set), and opened only to sign or authorize a delivery.
 *
 * A stages write that omits a credential keeps the stored one of the stage with the same id, so
 * a client that reads the project, changes something and writes the stages back loses nothing.
 * A credential the stage's authType does not use is dropped: only what signs is kept.
 */

export const WEBHOOK_CREDENTIALS_PURPOSE = 'webhook-credentials';

/** The credential fields: the plain one a client writes, the sealed one the store keeps. */
export const CREDENTIALS = [
  { plain: 'secret', sealed: 'sealedSecret', has: 'hasSecret', authType: 'secret' },
  { plain: 'token', sealed: 'sealedToken', has: 'hasToken', authType: 'bearer_token' },
] as const;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

const boxes = new WeakMap<Buffer, SecretBox>();
export function credentialsBox(key: Buffer): SecretBox {
  let b = boxes.get(key);
  if (!b) boxes.set(key, (b = new SecretBox(key, WEBHOOK_CREDENTIALS_PURPOSE)));
  return b;
}

export function credentialAad(projectId: string, stageId: string, field: string): string {
  return `webhook:${projectId}:${stageId}:${field}`;
}

/** The stage as answers show it: no credential, plain or sealed; `hasSecret`/`hasToken` instead. */
export function publicStage(stage: Stage): Stage {
  if (!isRec(stage.webhook)) return stage;
  const webhook: Rec = { ...stage.webhook };
  for (const c of CREDENTIALS) {
    const has = nonEmpty(webhook[c.plain]) || nonEmpty(webhook[c.sealed]);
    delete webhook[c.plain];
    delete webhook[c.sealed];
    if (has) webhook[c.has] = true;
    else delete webhook[c.has];
  }
  return { ...stage, webhook: webhook as WebhookConfig };
}

/**
 * Stages as a client sent them, before validation: what only the server may write (sealed
 * values, the has-flags) is taken out, and an omitted credential comes from the stored stage of
 * the same id, still sealed. Validation accepts a sealed credential as present.
 */
export function keepStoredCredentials(input: unknown[], stored: readonly Stage[]): unknown[] {
  const byId = new Map(stored.map((s) => [s.id, s]));
  return input.map((stage) => {
    if (!isRec(stage) || !isRec(stage['webhook'])) return stage;
    const webhook: Rec = { ...stage['webhook'] };
    const before = typeof stage['id'] === 'string' ? byId.get(stage['id']) : undefined;
    const beforeHook: Rec = before && isRec(before.webhook) ? before.webhook : {};
    for (const c of CREDENTIALS) {
      delete webhook[c.has];
      delete webhook[c.sealed];
      if (nonEmpty(webhook[c.plain])) continue;
      delete webhook[c.plain];
      if (nonEmpty(beforeHook[c.sealed])) webhook[c.sealed] = beforeHook[c.sealed];
      // A value stored before sealing existed (not yet upgraded) is kept too.
      else if (nonEmpty(beforeHook[c.plain])) webhook[c.plain] = beforeHook[c.plain];
    }
    return { ...stage, webhook };
  });
}

/**
 * The stored form of validated stages: plain credentials sealed, credentials the authType does
 * not use dropped. Also seals stages stored before sealing existed (the upgrade does this).
 */
export function sealCredentials(stages: readonly Stage[], key: Buffer, projectId: string): Stage[] {
  const box = credentialsBox(key);
  return stages.map((stage) => {
    if (!isRec(stage.webhook)) return stage;
    const webhook: Rec = { ...stage.webhook };
    for (const c of CREDENTIALS) {
      const plain = webhook[c.plain];
      delete webhook[c.plain];
      if (webhook['authType'] !== c.authType) delete webhook[c.sealed];
      else if (nonEmpty(plain)) webhook[c.sealed] = box.seal(plain, credentialAad(projectId, stage.id, c.plain));
    }
    return { ...stage, webhook: webhook as WebhookConfig };
  });
}

/** True when a stored stages document still holds a plain credential (written before sealing). */
export function hasPlainCredentials(stages: readonly Stage[]): boolean {
  return stages.some((s) => isRec(s.webhook) && CREDENTIALS.some((c) => nonEmpty((s.webhook as Rec)[c.plain])));
}

/** The stage's webhook settings with its credentials opened, for one delivery. Throws SecretBoxError. */
export function openWebhookConfig(stage: Stage, key: Buffer, projectId: string): WebhookConfig {
  const webhook: Rec = { ...(stage.webhook as Rec) };
  const box = credentialsBox(key);
  for (const c of CREDENTIALS) {
    const sealed = webhook[c.sealed];
    delete webhook[c.sealed];
    if (nonEmpty(sealed)) webhook[c.plain] = box.open(sealed, credentialAad(projectId, stage.id, c.plain));
  }
  return webhook as WebhookConfig;
}

/**
 * Re-seals every credential of a stages document from one key to another; values already under
 * the new key are left as they are. Returns the new document and how many values changed.
 */
export function resealCredentials(
  stages: readonly Stage[],
  projectId: string,
  from: SecretBox,
  to: SecretBox,
): { stages: Stage[]; rotated: number; already: number } {
  let rotated = 0;
  let already = 0;
  const next = stages.map((stage) => {
    if (!isRec(stage.webhook)) return stage;
    const webhook: Rec = { ...stage.webhook };
    for (const c of CREDENTIALS) {
      const sealed = webhook[c.sealed];
      if (!nonEmpty(sealed)) continue;
      const aad = credentialAad(projectId, stage.id, c.plain);
      if (to.sealedByMe(sealed)) {
        to.open(sealed, aad); // proves it really opens
        already++;
        continue;
      }
      webhook[c.sealed] = to.seal(from.open(sealed, aad), aad);
      rotated++;
    }
    return { ...stage, webhook: webhook as WebhookConfig };
  });
  return { stages: next, rotated, already };
}
