import { PNG } from 'pngjs';
import { expect } from 'vitest';
import { METRICS } from '../../src/services/metrics/metrics.service.js';
import type { TestApp } from './app.js';
import { fillBucket, S3RVER_KEYS, type startS3rver } from './emulators.js';
import { startAssistPlugin } from './assist-plugin.js';
import { startPctValidator } from './pct-validator.js';
import { expectOk, type Behave, type PluginServer } from './plugin-server.js';
import type { Receiver } from './webhook-receiver.js';
import { waitFor } from './wait.js';

/**
 * Drives every operation of the API once or more with realistic data, as a team would use it:
 * a project with an ontology and a workflow (Label, Review, Plugin, Webhook, Complete), assets,
 * batches, tasks worked through, issues, attachments, pre-labels, uploads, storages, plugins,
 * members, exports and metrics. The caller records the answers (answer-recorder).
 */

export const ONTOLOGY = {
  tools: [
    { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000', ocrEnabled: false, myExtra: 1 },
    {
      schemaId: 'lane',
      title: 'Lane',
      tool: 'polyline',
      classifications: [{ schemaId: 'kind', title: 'Kind', tool: 'text' }],
    },
  ],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      required: true,
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        { schemaId: 'rain', value: 'Rainy' },
      ],
    },
  ],
  relations: [{ schemaId: 'follows', title: 'Follows', tool: 'one-to-one' }],
  customNote: 'kept as sent',
};

export const BOX = { schemaId: 'car', objectId: 'box-1', 'bounding-box': { x: 1, y: 2, width: 30, height: 40 } };
export const SUN = { schemaId: 'weather', answer: 'sun' };

/** The plugin answers through /pluginLog and /pluginResponse, as a real model server would. */
export const pluginBehaviour =
  (plugin: () => PluginServer): Behave =>
  (call, api) => ({
    status: 200,
    after: async () => {
      const { session } = call.body;
      await expectOk(plugin(), api, 'POST', '/v2/pluginLog', { session, logs: ['model loaded', { found: 1 }] });
      await expectOk(plugin(), api, 'POST', '/v2/pluginResponse', {
        session,
        response: { tools: [BOX], classifications: [SUN] },
      });
    },
  });

export interface Fixtures {
  s3: Awaited<ReturnType<typeof startS3rver>>;
  plugin: PluginServer;
  receiver: Receiver;
}

type Json = Record<string, unknown>;

function form(fields: Record<string, string>, file?: { name: string; body: string | Buffer }): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  if (file) f.append('file', new Blob([file.body]), file.name);
  return f;
}

export async function driveEveryOperation(t: TestApp, fx: Fixtures): Promise<void> {
  const call = async (method: string, url: string, body?: unknown, key?: string) => {
    const res = await t.call(method, url, { ...(body === undefined ? {} : { body }), ...(key ? { key } : {}) });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json().data as Json;
  };
  const get = (url: string) => call('GET', url);
  const orgId = t.orgId;

  // Storages and files in them.
  await fillBucket(fx.s3.client, 'frames', { 'drive/a.jpg': 'a', 'drive/b.jpg': 'b', 'guide.pdf': '%PDF' });
  const storage = (
    await call('POST', '/v2/storages', {
      name: 'Lab bucket',
      provider: 'CUSTOM_S3',
      host: fx.s3.url,
      publicKey: S3RVER_KEYS.accessKeyId,
      privateKey: S3RVER_KEYS.secretAccessKey,
    })
  ).storage as Json;
  const storageId = storage._id as string;
  await get('/v2/storages?page=1&limit=10');
  await call('POST', '/v2/file-explorer', { storageId, bucket: 'frames', folder: 'drive' });
  await get(`/v2/storages/${storageId}/files?bucketName=frames&path=drive&getSignedUrls=false`);
  await get(`/v2/storages/${storageId}/files?bucketName=frames`);

  // Plugins.
  const plugin = (
    await call('POST', '/v2/plugins', { name: 'Detector', url: `${fx.plugin.url}/detect`, secret: 's3cret' })
  ).plugin as Json;
  const spare = (await call('POST', '/v2/plugins', { name: 'Spare', url: `${fx.plugin.url}/spare`, secret: 's' }))
    .plugin as Json;
  await get('/v2/plugins?limit=10');
  await call('DELETE', `/v2/plugins/${String(spare._id)}`);

  // Projects.
  const pid = (
    (await call('POST', '/v2/project', { name: 'Street scenes', description: 'Cars and lanes' })).project as Json
  )._id as string;
  await call('POST', '/v2/project', { name: 'Point clouds', type: 'pct', pctConfig: { segmentationMode: true } });
  const stages = [
    { id: 'Start', type: 'Start', name: 'Start', next: ['Model'], position: { x: 0, y: 0 } },
    {
      id: 'Model',
      type: 'Plugin',
      name: 'Model',
      next: ['Label'],
      pluginId: plugin._id,
      pluginConfig: { minScore: 0.4 },
    },
    { id: 'Label', type: 'Label', name: 'Label', next: ['Review'] },
    { id: 'Review', type: 'Review', name: 'Review', next: ['Hook', 'Label'] },
    {
      id: 'Hook',
      type: 'Webhook',
      name: 'Notify us',
      next: ['Complete'],
      webhook: { url: `${fx.receiver.url}/hook`, authType: 'secret', secret: 'hook-secret' },
    },
    { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
  ];
  await call('POST', `/v2/project/${pid}`, {
    stages,
    categorySchema: ONTOLOGY,
    errorCodesEnabled: true,
    errorSchema: { codes: [{ category: 'Box', name: 'Loose box', key: 'loose' }] },
    projectPlugins: { hints: true },
    tags: ['streets'],
    taskSkipEnabled: true,
  });
  await get('/v2/listProjects?page=1&limit=10&sort=-createdAt');
  await get(`/v2/project/${pid}`);

  // Members and invites.
  const lead = await t.addUser('lead@example.com');
  await call('POST', `/v2/organization/${orgId}/users`, {
    users: [{ email: 'ann@example.com' }, { email: 'bo@example.com', organizationRole: 'admin' }],
  });
  await get(`/v2/organization/${orgId}/users`);
  await call('DELETE', `/v2/organization/${orgId}/users`, { users: ['bo@example.com'] });
  const invited = await call('POST', `/v2/organization/${orgId}/invites`, {
    to: ['new@example.com', 'later@example.com'],
    projectAssignments: [{ projectId: pid, projectRole: 'Labeler' }],
  });
  // The invitee's one-time link: what it is for, then the password that accepts it.
  const inviteLink = (invited.links as Json[]).find((l) => l.email === 'new@example.com');
  const token = String(inviteLink?.url).split('/').pop();
  await get(`/v2/password-links/${token}`);
  await call('POST', `/v2/password-links/${token}`, { password: 'a long password 1' });
  // The console's session: sign in with a key, who am I (and whether anyone is), sign out.
  await call('POST', '/v2/session', { apiKey: t.ownerKey });
  await get('/v2/session');
  await get('/v2/session/state');
  await get('/v2/session/providers');
  await call('DELETE', '/v2/session');
  // A new key for the lead (the owner's key drives the rest of this run): the lead's old one stops.
  const leadKey = (await call('POST', '/v2/session/api-key', {}, lead)).apiKey as string;
  await call('POST', `/v2/project/${pid}/assetBuilderTemplates`, {
    name: 'Caption card',
    template: '<figure><img src="{{image}}"><figcaption>{{caption}}</figcaption></figure>',
    data_config: { image: { type: 'image' }, caption: { type: 'text' }, id: { type: 'text' } },
    external_id_column: 'id',
  });
  await get(`/v2/organization/${orgId}/invites`);
  await get(`/v2/organization/${orgId}/settings`);
  await call('POST', `/v2/organization/${orgId}/settings`, { passwordSignIn: true });
  await get(`/v2/organization/${orgId}/audit?limit=5`);
  const auditLines = await t.call('GET', `/v2/organization/${orgId}/audit/export?operation=member.add`);
  expect(auditLines.body.trim().split('\n').length, auditLines.body).toBeGreaterThan(0);
  await call('DELETE', `/v2/organization/${orgId}/invites`, { to: ['later@example.com'] });
  await call('POST', `/v2/project/${pid}/assigned`, {
    assignees: ['lead@example.com', 'ann@example.com'],
    role: 'Lead',
  });

  // Batches and assets.
  await call('POST', `/v2/batches/${pid}`, { batches: 'Morning' });
  await call('POST', `/v2/batches/${pid}`, { batches: [{ name: 'Evening' }] });
  const batches = (await get(`/v2/batches/${pid}`)) as unknown;
  expect(batches).toBeDefined();
  const imported = await call('POST', `/v2/project/${pid}/cloud`, {
    assets: [
      {
        data: 'https://cdn.example.com/street/1.jpg',
        externalId: 'street-1',
        batches: ['Morning'],
        metadata: { width: 1920, height: 1080, camera: { id: 'front' } },
      },
      { data: 'https://cdn.example.com/street/2.jpg', externalId: 'street-2', contextData: { city: 'Lyon' } },
      { data: 'https://cdn.example.com/street/3.jpg', externalId: 'street-3' },
      { data: 'https://cdn.example.com/street/4.jpg', externalId: 'street-4' },
    ],
    priority: 5,
  });
  const assets = imported.assets as { _id: string; taskId: string }[];
  const [a1, a2, a3, a4] = assets.map((a) => a.taskId) as [string, string, string, string];
  const assetIds = assets.map((a) => a._id);
  await call('POST', '/v2/assignBatches', { project: pid, batches: ['Evening'], assets: [assetIds[1]] });
  await get(`/v2/project/${pid}/assets?page=1&limit=10`);
  await call('PUT', `/v2/asset/${assetIds[0]}/size`, { width: 1920, height: 1080 });

  // The plugin stage: the plugin logs and answers, the tasks reach Label.
  const stageOf = async (id: string) =>
    (await t.store.db.selectFrom('tasks').select('stage_id').where('id', '=', id).executeTakeFirstOrThrow()).stage_id;
  for (const id of [a1, a2, a3, a4]) await waitFor(async () => (await stageOf(id)) === 'Label', `task ${id} in Label`);
  expect(fx.plugin.problems).toEqual([]);
  const session = ((await get(`/v2/pluginLog?project=${pid}&stageId=Model`)).logs as Json[])[0]?.session as string;
  await get(`/v2/pluginLog?session=${session}&sort=createdAt`);
  await call('POST', '/v2/pluginLog', { session, message: 'late line' });
  await call('POST', `/v2/project/${pid}/rerun-plugin`, { stageId: 'Model' });

  // Work: queue, next, annotate (both verbs), review, history, assign, forward, requeue, priority.
  await get(`/v2/project/${pid}/queue`);
  const next = await get(`/v2/project/${pid}/next?stageId=Label`);
  expect(next).toBeDefined();
  await call('POST', `/v2/task/${String((next.task as Json)._id)}/skip`);
  // The editor's place in the stage, release and take back.
  const held = String((next.task as Json)._id);
  await get(`/v2/task/${held}/position?since=${encodeURIComponent('2020-01-01T00:00:00Z')}`);
  await call('POST', `/v2/task/${held}/release`, {});
  await call('POST', `/v2/task/${held}/take`);
  await call('POST', `/v2/annotate/${a1}?nextStage=true`, {
    answer: { tools: [BOX], classifications: [SUN], relations: [] },
    duration: 4200,
  });
  await call('GET', `/v2/annotate/${a2}`, { answer: { objects: [BOX], classifications: [SUN] } });
  const layer = await t.app.inject({
    method: 'POST',
    url: `/v2/task/${a2}/brush`,
    headers: { apikey: t.ownerKey, 'content-type': 'image/png' },
    payload: PNG.sync.write(new PNG({ width: 4, height: 3 })),
  });
  expect(layer.statusCode, layer.body).toBe(200);
  await call('POST', `/v2/annotate/${a2}`, { brushDataUrl: layer.json().data.brushDataUrl });
  const voxels = await t.app.inject({
    method: 'POST',
    url: `/v2/task/${a2}/medical-brush`,
    headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
    payload: Buffer.concat([
      Buffer.from('NRRD0004\ntype: uchar\ndimension: 3\nsizes: 2 2 2\nencoding: raw\n\n'),
      Buffer.alloc(8),
    ]),
  });
  expect(voxels.statusCode, voxels.body).toBe(200);
  const lakes = ((await call('POST', '/v2/project', { name: 'Lakes' })).project as Json)._id as string;
  const lake = { schemaId: 'lake', title: 'Lake', tool: 'segmentation', color: '#0000ff' };
  await call('POST', `/v2/project/${lakes}`, { categorySchema: { tools: [lake], classifications: [] } });
  const lakeTask = (
    (await call('POST', `/v2/project/${lakes}/cloud`, { assets: [{ data: 'https://cdn.example.com/l.png' }] }))
      .assets as Json[]
  )[0]?.taskId as string;
  const zones = [
    {
      region: [
        [1, 1],
        [9, 1],
        [9, 9],
      ],
    },
  ];
  await call('POST', `/v2/annotate/${lakeTask}`, {
    answer: { tools: [{ schemaId: 'lake', objectId: 'l', segmentation: { zones } }] },
  });
  const mask = await t.call('GET', `/v2/mask?annotation=l&task=${lakeTask}`);
  expect(mask.statusCode).toBe(200);
  // The editor's Assist, through a plugin that answers zones.
  const assistant = await startAssistPlugin('assist-s3cret');
  try {
    assistant.mode = 'zones';
    const helper = (
      await call('POST', '/v2/plugins', {
        name: 'Outliner',
        url: assistant.url,
        secret: 'assist-s3cret',
        assistUrl: assistant.url,
      })
    ).plugin as Json;
    await call('POST', `/v2/task/${lakeTask}/assist`, { pluginId: helper._id, schemaId: 'lake', positive: [[20, 20]] });
  } finally {
    await assistant.close();
  }
  // A point-cloud answer checked by the project's external validator.
  const validator = await startPctValidator('validator-s3cret');
  try {
    const ext = { enabled: true, apiUrl: validator.url, secret: 'validator-s3cret' };
    const lidar = ((await call('POST', '/v2/project', { name: 'Lidar', type: 'pct' })).project as Json)._id as string;
    await call('POST', `/v2/project/${lidar}`, {
      pctConfig: { externalValidation: ext },
      categorySchema: { tools: [{ schemaId: 'car', title: 'Car', tool: 'pct', markingTools: ['cuboid'] }] },
    });
    const frames = ['https://data.example/drive/0.pcd', 'https://data.example/drive/1.pcd'];
    const imported = await call('POST', `/v2/project/${lidar}/cloud`, {
      assets: [{ data: frames[0], dataset: frames, editorType: 'pct' }],
    });
    const lidarTask = (imported.assets as Json[])[0]!.taskId as string;
    await call('POST', `/v2/task/${lidarTask}/pctValidation`, { answer: { tools: [] } });
  } finally {
    await validator.close();
  }
  await call('POST', `/v2/review/${a1}`, { reviewStatus: 'Accepted' });
  await waitFor(async () => (await stageOf(a1)) === 'Complete', 'the webhook stage to pass the task on');
  await get(`/v2/task/${a1}`);
  await call('POST', `/v2/performance/${pid}`, {});
  await call('POST', `/v2/project/${pid}/quality`, {});
  await call('POST', `/v2/project/${pid}/benchmarks`, { tasks: [a1] });
  await get(`/v2/project/${pid}/benchmarks/${a1}`);
  await get(`/v2/project/${pid}/benchmarkSubmissions`);
  await call('POST', `/v2/project/${pid}/benchmarks/resume`, { labeler: 'lead@example.com' });
  await call('DELETE', `/v2/project/${pid}/benchmarks`, { tasks: [a1] });
  await get(`/v2/project/${pid}/tasks?page=1&limit=10&includeAnswer=true`);
  await get(`/v2/project/${pid}/tasks?status[eq]=Completed`);
  const history = await get(`/v2/task/${a1}/history`);
  const historyId = (history.taskHistory as Json[])[0]?._id;
  await get(`/v2/taskHistory/${String(historyId)}`);
  await get(`/v2/taskHistory/${a1}`);
  await call('POST', '/v2/task/assign', { project: pid, tasks: [a3], stage: 'Label', user: 'lead@example.com' });
  await call('POST', `/v2/project/${pid}/updatePriority`, { filters: { taskIds: [a3] }, priority: 9 });
  await call('POST', `/v2/project/${pid}/requeueTasks`, {
    toStageId: 'Label',
    filters: { taskIds: [a2] },
    options: { removeAssignee: true },
  });

  // Webhooks: the status of the stages, the log, a re-run.
  await get(`/v2/project/${pid}/stages`);
  await get(`/v2/project/${pid}/webhookLogs?limit=10`);
  await call('POST', `/v2/project/${pid}/rerun-webhook`, { stageId: 'Hook' });

  // Issues.
  const created = await call('POST', '/v2/issues', {
    content: 'The box is loose',
    labelTask: a1,
    position: '[10, 20]',
    page: 0,
    errorCodes: ['loose'],
  });
  const issueId = ((created.issue as Json | undefined)?._id ?? created._id) as string;
  await get(`/v2/issues?project=${pid}&page=1&limit=10`);
  await call('POST', `/v2/issues/${issueId}/comment`, { content: 'Fixed it' });
  await call('POST', `/v2/issues/${issueId}`, { status: 'Resolved' });
  const spareIssue = await call('POST', '/v2/issues', { content: 'Duplicate', labelTask: a1, errorCodes: ['loose'] });
  await call('DELETE', `/v2/issues/${String((spareIssue.issue as Json | undefined)?._id ?? spareIssue._id)}`);

  // Attachments and pre-labels.
  await call('POST', '/v2/attachments', {
    project: pid,
    attachments: [
      {
        externalId: 'street-2',
        attachments: [
          { type: 'TEXT', value: 'rainy morning' },
          { type: 'IMAGE', value: 'https://cdn.example.com/map.png' },
        ],
      },
    ],
  });
  const pre = await call('POST', `/v2/project/${pid}/cloud`, {
    assets: [{ data: 'https://cdn.example.com/street/5.jpg', externalId: 'street-5' }],
  });
  expect(pre).toBeDefined();
  // A project without a plugin keeps new tasks in Start, where pre-labels go.
  const plain = ((await call('POST', '/v2/project', { name: 'Pre-labelled' })).project as Json)._id as string;
  await call('POST', `/v2/project/${plain}`, {
    categorySchema: ONTOLOGY,
    stages: [
      { id: 'Start', type: 'Start', next: ['Hold'], autoForward: false },
      { id: 'Hold', type: 'Hold', next: ['Complete'] },
      { id: 'Complete', type: 'Complete' },
    ],
  });
  await call('POST', `/v2/project/${plain}/cloud`, {
    assets: [
      { data: 'https://cdn.example.com/p/1.jpg', externalId: 'p-1' },
      { data: 'https://cdn.example.com/p/2.jpg', externalId: 'p-2' },
    ],
  });
  await call('POST', '/v2/import/labels', {
    project: plain,
    jsonContent: [{ externalId: 'p-1', objects: [BOX], classifications: [SUN] }],
  });
  // Another tool's label file (the extension beside the contract's import): a COCO file's box.
  const coco = await t.app.inject({
    method: 'POST',
    url: `/v2/project/${plain}/import/labels?format=coco`,
    headers: { apikey: t.ownerKey, 'content-type': 'application/json' },
    payload: JSON.stringify({
      images: [{ id: 1, file_name: '2.jpg', width: 640, height: 480 }],
      categories: [{ id: 1, name: 'Car' }],
      annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [10, 20, 30, 40], area: 1200, iscrowd: 0 }],
    }),
  });
  expect(coco.statusCode, coco.body).toBe(200);
  await call('POST', `/v2/project/${plain}/forward`, { stageId: 'Start' });

  // Files: upload and read URLs, instructions, chat.
  await get(`/v2/getUploadUrl?project=${pid}&name=frame.png`);
  const upload = await get(`/v2/getUploadUrl?project=${pid}&name=frame.png&storageId=${storageId}&bucket=frames`);
  expect(upload).toBeDefined();
  await get(`/v2/getSignedUrl?name=${encodeURIComponent('https://cdn.example.com/street/1.jpg')}`);
  for (const [what, payload] of [
    ['instructions', form({}, { name: 'Guide.pdf', body: '%PDF-1.7 guide' })],
    [
      'chat',
      form(
        { namingStrategy: 'index' },
        {
          name: 'chats.json',
          body: JSON.stringify([
            { messages: [{ id: '1', content: 'Hi', user: { role: 'user', id: 'ann@example.net' } }] },
          ]),
        },
      ),
    ],
    ['chat', form({ numberOfConversations: '2' })],
  ] as const) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/${what}`,
      headers: { apikey: t.ownerKey },
      payload,
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }

  // Exports, their download, metrics.
  const link = (await get(`/v2/export?project=${pid}&format=json&includeMetadata=true`)).exportPath as string;
  await get(`/v2/exportV3?project=${pid}&format=ndjson&type=issue`);
  await get(`/v2/project/${pid}/exports`);
  const download = await t.app.inject({ method: 'GET', url: new URL(link).pathname });
  expect(download.statusCode).toBe(200);
  for (const metric of METRICS) {
    await get(`/v2/${pid}/overview/${metric}`);
  }

  // Refusals: each error status a client meets, in the one envelope.
  const member = await t.addUser('member@example.com');
  const refusals: [string, string, unknown, string | null, number][] = [
    ['GET', '/v2/listProjects', undefined, null, 401],
    ['GET', `/v2/project/${'0'.repeat(24)}`, undefined, t.ownerKey, 404],
    ['POST', '/v2/project', { name: '' }, t.ownerKey, 400],
    ['POST', `/v2/project/${pid}`, { name: 'Taken over' }, member, 404],
    ['POST', '/v2/storages', { name: 'x', provider: 'AWS' }, member, 403],
  ];
  for (const [method, url, body, key, status] of refusals) {
    const res = await t.call(method, url, { ...(body === undefined ? {} : { body }), key });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  }

  // Removals last.
  await call('DELETE', `/v2/project/${pid}/assets`, { assets: [assetIds[3]] });
  await call('DELETE', `/v2/storages/${storageId}`);
  await call('DELETE', `/v2/project/${plain}`);
  expect(leadKey).not.toBe(lead);
}
