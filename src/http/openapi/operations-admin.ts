import { Type } from 'typebox';
import { AssistAnswer } from '../../schemas/assist.js';
import { PctValidationAnswer } from '../../schemas/pct-validation.js';
import { ref } from './components.js';
import { METRIC_DATA } from './metric-schemas.js';
import { Count, ListOf, type Operation } from './operation-types.js';

const issue = Type.Object({ issue: ref('Issue') });
const storage = Type.Object({ storage: ref('Storage') });
const plugin = Type.Object({ plugin: ref('Plugin') });
const ExportAnswer = Type.Object({
  exportPath: Type.String({ description: 'link to the zip' }),
  storage: Type.Optional(
    Type.Object(
      { storageId: Type.String(), bucket: Type.String(), key: Type.String({ description: 'the zip in the bucket' }) },
      { description: "where the zip was written, when the project's exportStorageEnabled is set" },
    ),
  ),
});
const rerun = (what: string) => ({ stageIds: Type.Array(Type.String(), { description: `the ${what} stages re-run` }) });

/** Organization, storages, files, workflow, plugins, issues, exports and metrics. */
export const ADMIN_OPERATIONS: Record<string, Operation> = {
  'GET /v2/organization/:orgId/users': {
    id: 'listOrganizationUsers',
    summary: 'List the members of your organization',
    status: 200,
    data: ListOf('users', ref('OrganizationUser')),
  },
  'POST /v2/organization/:orgId/users': {
    id: 'addOrganizationUsers',
    summary: 'Add members, or change the role of existing ones',
    status: 201,
    data: Type.Object({ users: Type.Array(ref('OrganizationUser')) }),
    errors: [409],
  },
  'DELETE /v2/organization/:orgId/users': {
    id: 'removeOrganizationUsers',
    summary: 'Remove members from your organization',
    status: 200,
    data: Type.Object({ users: Type.Array(Type.String()), removed: Count('members removed') }),
  },
  'GET /v2/organization/:orgId/invites': {
    id: 'listInvites',
    summary: 'List the open invitations',
    status: 200,
    data: ListOf('invites', ref('Invite')),
  },
  'POST /v2/organization/:orgId/invites': {
    id: 'createInvites',
    summary: 'Invite people, optionally onto projects',
    status: 201,
    data: Type.Object({
      invited: Count('invitations written'),
      links: Type.Array(
        Type.Object({
          email: Type.String(),
          url: Type.String({
            description: '`<publicUrl>/invite/<token>`: one-time; the invitee sets a password there',
          }),
          expiresAt: Type.String({ description: 'after ANNOTARY_INVITE_HOURS (default 7 days)' }),
        }),
        {
          description:
            'One accept link per invited person who has no account yet. Shown once (only a hash is stored): ' +
            'send it to the invitee. Inviting again makes a new link and voids the old one.',
        },
      ),
    }),
  },
  'DELETE /v2/organization/:orgId/invites': {
    id: 'deleteInvites',
    summary: 'Withdraw invitations',
    status: 200,
    data: Type.Object({ deleted: Count('invitations withdrawn') }),
  },
  'POST /v2/project/:projectId/assigned': {
    id: 'assignProjectMembers',
    summary: 'Give members a role on a project',
    status: 200,
    data: Type.Object({ project: ref('Project') }),
  },
  'GET /v2/storages': {
    id: 'listStorages',
    summary: 'List the cloud storages of your organization',
    status: 200,
    data: ListOf('storages', ref('Storage')),
  },
  'POST /v2/storages': {
    id: 'createStorage',
    summary: 'Register a cloud storage',
    description: 'The credentials are checked against the provider; secrets are stored encrypted and never returned.',
    status: 201,
    data: storage,
    errors: [502],
  },
  'DELETE /v2/storages/:storageId': {
    id: 'deleteStorage',
    summary: 'Delete a storage (soft delete)',
    status: 200,
    data: storage,
  },
  'GET /v2/storages/:storageId/files': {
    id: 'listStorageFiles',
    summary: 'List the files in a bucket, recursively',
    description: 'Pre-signed URLs by default; `getSignedUrls=false` answers object keys.',
    status: 200,
    data: Type.Object({ total: Count('files'), files: Type.Array(Type.String()) }),
    errors: [502],
  },
  'GET /v2/getUploadUrl': {
    id: 'getUploadUrl',
    summary: 'A URL to PUT a file to (the file store or a storage bucket)',
    status: 200,
    data: Type.Object({
      uploadUrl: Type.String(),
      readUrl: Type.String({
        description: "a link of ours to read the file once it is there, good for 10 years: an asset's data",
      }),
    }),
    errors: [502],
  },
  'GET /v2/getSignedUrl': {
    id: 'getSignedUrl',
    summary: 'A URL to read a file',
    status: 200,
    data: Type.Object({ signedUrl: Type.String() }),
    errors: [502],
  },
  'POST /v2/project/:projectId/instructions': {
    id: 'uploadInstructions',
    summary: 'Upload the instructions file of a project',
    description: 'Stores the file and sets the project `instructions` to a link that serves it.',
    status: 200,
    data: Type.Object({ instructions: Type.String({ description: 'link to the file' }), project: ref('Project') }),
    errors: [413, 502],
  },
  'POST /v2/project/:projectId/chat': {
    id: 'createChatAssets',
    summary: 'Create chat assets from a conversations file, or empty conversations',
    status: 201,
    data: Type.Object({ assets: Type.Object({ assetsCreated: Count('assets created') }) }),
    errors: [413],
  },
  'GET /v2/project/:projectId/stages': {
    id: 'getStageStatus',
    summary: 'The workflow with live task counts and warnings per stage',
    status: 200,
    data: Type.Object({ stages: Type.Array(ref('StageStatus')) }),
  },
  'POST /v2/project/:projectId/rerun-webhook': {
    id: 'rerunWebhook',
    summary: 'Send the webhook again for the tasks waiting in Webhook stages',
    status: 200,
    data: Type.Object({
      webhook: Type.Object({
        ...rerun('Webhook'),
        queued: Count('deliveries queued'),
        alreadyQueued: Count('waiting tasks skipped: a delivery of theirs is still queued'),
      }),
    }),
  },
  'GET /v2/project/:projectId/webhookLogs': {
    id: 'listWebhookLogs',
    summary: 'The webhook delivery log, newest first',
    status: 200,
    data: ListOf('logs', ref('WebhookLogEntry')),
  },
  'POST /v2/plugins': { id: 'createPlugin', summary: 'Register a plugin', status: 201, data: plugin },
  'GET /v2/plugins': {
    id: 'listPlugins',
    summary: 'List the plugins of your organization',
    status: 200,
    data: ListOf('plugins', ref('Plugin')),
  },
  'DELETE /v2/plugins/:pluginId': { id: 'deletePlugin', summary: 'Delete a plugin', status: 200, data: plugin },
  'POST /v2/task/:taskId/assist': {
    id: 'assistTask',
    summary: "Ask a plugin for a mask from the labeler's points (the editor's Assist)",
    description:
      'Sends the image link, the points inside (`positive`) and outside (`negative`) the object and the box to ' +
      "the plugin's `assistUrl`, signed with its Secret header, and answers its candidate: a PNG `mask` of the " +
      "image's size or `zones`. Allowed to whoever may annotate the task. A plugin that fails, answers " +
      'something else or does not answer in time (ANNOTARY_ASSIST_TIMEOUT_MS) is a 502 saying so.',
    status: 200,
    data: Type.Object({ assist: AssistAnswer }),
    errors: [502],
  },
  'POST /v2/task/:taskId/pctValidation': {
    id: 'validatePctTask',
    summary: "Check a point-cloud answer with the project's external validator",
    description:
      "Sends the answer (the body's, else the task's saved one) and the frames' links to the pct project's " +
      '`pctConfig.externalValidation.apiUrl`, with the Secret header when the project set a `secret`, and ' +
      "answers the validator's verdict. The frames sent: every frame, the one `frameNumbers` names " +
      "(`specificFrame`), or the body's `frame` (`singleFrame`). Allowed to whoever may annotate the task. " +
      'A project without external validation is a 409; a validator that fails, answers something else or does ' +
      'not answer in time (ANNOTARY_PCT_VALIDATION_TIMEOUT_MS) is a 502 saying so.',
    status: 200,
    data: Type.Object({ validation: PctValidationAnswer }),
    errors: [409, 502],
  },
  'POST /v2/pluginResponse': {
    id: 'submitPluginResponse',
    summary: "A plugin's answer for the task of a session",
    description: 'Writes the answer and moves the task on; with `error` the task stays and the stage warns.',
    status: 200,
    data: Type.Object({
      session: Type.String(),
      status: Type.String({ description: 'answered or failed' }),
      task: ref('Task'),
    }),
    errors: [409],
  },
  'POST /v2/pluginLog': {
    id: 'writePluginLog',
    summary: 'Log lines of a plugin session',
    status: 200,
    data: Type.Object({ session: Type.String(), logged: Count('lines written') }),
  },
  'GET /v2/pluginLog': {
    id: 'listPluginLogs',
    summary: 'The log of a plugin session, or of a project',
    status: 200,
    data: ListOf('logs', ref('PluginLogEntry')),
  },
  'POST /v2/project/:projectId/rerun-plugin': {
    id: 'rerunPlugin',
    summary: 'Call the plugin again for the tasks waiting in Plugin stages',
    status: 200,
    data: Type.Object({ plugin: Type.Object({ ...rerun('Plugin'), queued: Count('calls queued') }) }),
  },
  'POST /v2/issues': { id: 'createIssue', summary: 'Raise an issue on a task', status: 201, data: issue },
  'GET /v2/issues': { id: 'listIssues', summary: 'List issues', status: 200, data: ListOf('issues', ref('Issue')) },
  'POST /v2/issues/:issueId': {
    id: 'updateIssue',
    summary: 'Change the content, status or error codes of an issue',
    status: 200,
    data: issue,
  },
  'DELETE /v2/issues/:issueId': { id: 'deleteIssue', summary: 'Delete an issue', status: 200, data: issue },
  'POST /v2/issues/:issueId/comment': { id: 'commentIssue', summary: 'Comment on an issue', status: 200, data: issue },
  'POST /v2/attachments': {
    id: 'addAttachments',
    summary: 'Attach images, videos or text to assets',
    status: 201,
    data: Type.Object({
      assets: Count('assets changed'),
      attachments: Count('attachments added'),
      duplicates: Count('attachments already there, skipped'),
    }),
  },
  'GET /v2/export': {
    id: 'exportProject',
    summary: 'Export a project',
    description:
      'Writes a zip of the project (one JSON or NDJSON entry, or a dataset: coco, yolo, voc, masks, cvat) and ' +
      'answers a link to it that needs no key and expires; with `exportStorageEnabled` the zip goes to the export ' +
      'storage, the link is its signed URL and `storage` says where it is.',
    status: 200,
    data: ExportAnswer,
    errors: [502],
  },
  'GET /v2/exportV3': {
    id: 'exportProjectV3',
    summary: 'Export a project (the same as /export)',
    status: 200,
    data: ExportAnswer,
    errors: [502],
  },
  'GET /v2/project/:projectId/exports': {
    id: 'listProjectExports',
    summary: 'The exports asked of a project, newest first (an extension)',
    description: 'The newest 50 are kept. Managers only, as exports are.',
    status: 200,
    data: ListOf('exports', ref('ExportRecord')),
  },
  'GET /v2/organization/:orgId/audit/export': {
    id: 'exportAuditRecords',
    summary: 'Every matching audit record as NDJSON, one record a line, newest first',
    description:
      'The filters of listAuditRecords (cursor and limit aside). Organization owners and admins only; ' +
      'other organizations answer 404.',
    status: 200,
    data: Type.String({ description: 'one JSON record (as in listAuditRecords) per line' }),
    raw: { contentType: 'application/x-ndjson' },
  },
  'GET /v2/exports/:expires/:signature/:file': {
    id: 'downloadExport',
    summary: 'Download the zip of an export',
    description: 'The signed path is the credential: no API key, not rate limited. 403 once expired.',
    status: 200,
    data: Type.String({ format: 'binary' }),
    raw: { contentType: 'application/zip' },
  },
  'GET /v2/:projectId/overview/:metric': {
    id: 'getProjectMetric',
    summary: 'One overview metric of a project',
    description: 'The answer holds one property, named after the metric asked for.',
    status: 200,
    data: METRIC_DATA,
  },
};
