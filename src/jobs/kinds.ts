/*
 * The names and payloads of the application's job kinds. Whoever queues, handles or reads the
 * jobs of a kind imports them from here: workflow behaviours queue them, services handle them,
 * repositories look for the unfinished ones. This module imports nothing, so any layer may.
 */

/** Job kind of a webhook delivery (handled by services/webhooks/webhook-delivery.ts). */
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';

/** Job kind of a plugin call (handled by services/plugins/plugin-call.ts). */
export const PLUGIN_CALL_JOB = 'plugin.call';

/**
 * What a job queued by a stage on entry remembers. `enteredAt` is the task's stage_entered_at
 * when it entered: a task that left the stage, or left and came back (which queued a job of its
 * own), no longer matches, and the job is dropped. No URL or secret here: the handler reads the
 * current settings when it runs.
 */
export interface StageEntryJob {
  projectId: string;
  taskId: string;
  stageId: string;
  enteredAt: string;
}

/**
 * What a queued delivery remembers. The job id is the delivery id (X-Annotary-Delivery), so it
 * stays the same across the attempts of one delivery.
 */
export type WebhookDeliveryJob = StageEntryJob;

/**
 * What a queued plugin call remembers. The job id is the call's session (sent to the plugin, and
 * matched when it answers), stable across the attempts of one call.
 */
export type PluginCallJob = StageEntryJob;

/** Job kind of a storage folder imported in the background (services/assets/storage-import.ts). */
export const STORAGE_IMPORT_JOB = 'storage.import';

/** A storage folder (or chosen files) imported into a project in the background (POST /file-explorer). */
export interface StorageImportJob {
  projectId: string;
  orgId: string;
  /** Who asked: the import runs with that person's rights, checked again when it runs. */
  email: string;
  storageId: string;
  bucket: string;
  /** The folder (empty or ending in `/`); externalIds are keys under it. */
  prefix: string;
  extensions?: string[] | undefined;
  batches?: string[] | undefined;
  /** Chosen keys; undefined = every file under the folder. */
  keys?: string[] | undefined;
  /**
   * The address the assets' links start with: that of the request that queued the import (a
   * job has no request of its own). Jobs queued before it was kept use ANNOTARY_PUBLIC_URL.
   */
  linkBase?: string | undefined;
}

/** Job kind of reading assets' file headers for their size (services/assets/asset-headers.service.ts). */
export const ASSET_HEADERS_JOB = 'asset.headers';

/** Assets of one project, imported together, whose files' headers are to be read. */
export interface AssetHeadersJob {
  projectId: string;
  assetIds: string[];
}
