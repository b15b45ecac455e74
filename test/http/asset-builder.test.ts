import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Asset builder templates on the project, and `/cloud` with `uploadLocal: true`: inline content
 * stored in the file store and served by a signed link, with per-asset classifications as
 * pre-labels [client].
 */

const ONTOLOGY = {
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        { schemaId: 'rain', value: 'Rainy' },
      ],
    },
  ],
};
const TEMPLATE = {
  name: 'Product card',
  description: 'A product with its picture',
  template: '<h1>{{title}}</h1><img src="{{ picture }}"><p>{{sku}}</p>',
  data_config: {
    title: { type: 'text', storage: 'public', include_in_export: true },
    picture: { type: 'image', storage: 'public', include_in_export: false },
    sku: { type: 'text' },
    shelf: { type: 'text' },
  },
  external_id_column: 'sku',
  batchColumn: 'shelf',
  pre_label_config: { weather: { column: 'title' } },
};

describe.each(ENGINES)('asset builder templates and inline assets on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  let users: RoleUsers;
  const addTemplate = (body: unknown, key?: string) =>
    t.call('POST', `/v2/project/${pid}/assetBuilderTemplates`, { body, ...(key ? { key } : {}) });
  const filesUnder = (dir: string): string[] => {
    const root = path.join(t.ctx.config.dataDir, 'files', dir);
    return fs.existsSync(root)
      ? (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.html'))
      : [];
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Builder' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } });
    users = await addRoleUsers(t, pid, `builder-${engine}`);
  });
  afterAll(() => t.close());

  it('adds a template (snake_case shape) and lists it in the project answer in camelCase', async () => {
    const res = await addTemplate(TEMPLATE);
    expect(res.statusCode, res.body).toBe(201);
    const added = res.json().data.assetBuilderTemplate;
    expect(added).toEqual({
      _id: expect.any(String),
      name: TEMPLATE.name,
      description: TEMPLATE.description,
      template: TEMPLATE.template,
      batchColumn: 'shelf',
      selectedExternalId: 'sku',
      dataConfig: {
        title: { type: 'text', storage: 'public', includeInExport: true },
        picture: { type: 'image', storage: 'public', includeInExport: false },
        sku: { type: 'text', includeInExport: false },
        shelf: { type: 'text', includeInExport: false },
      },
      preLabelConfig: TEMPLATE.pre_label_config,
      createdBy: 'admin@annotary.local',
      createdAt: expect.any(String),
    });
    expect(added._id).toMatch(/^[0-9a-f]{24}$/);
    const project = (await t.call('GET', `/v2/project/${pid}`)).json().data.project;
    expect(project.assetBuilderTemplates).toEqual([added]);
    const again = await addTemplate(TEMPLATE);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].field).toBe('name');
  });

  it('refuses a bad template naming the field, and needs the Manager role', async () => {
    const bad = async (body: unknown, field: string) => {
      const res = await addTemplate(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    };
    await bad({ ...TEMPLATE, name: 'x', template: '<p>{{price}}</p>' }, 'template');
    await bad({ ...TEMPLATE, name: 'x', template: '<p>{{Sky}}</p>' }, 'template');
    await bad({ ...TEMPLATE, name: 'x', external_id_column: 'id' }, 'external_id_column');
    await bad({ ...TEMPLATE, name: 'x', batchColumn: 'aisle' }, 'batchColumn');
    await bad({ ...TEMPLATE, name: 'x', data_config: { sku: { storage: 'public' } } }, 'data_config.sku.type');
    await bad({ ...TEMPLATE, name: 'x', data_config: {} }, 'data_config');
    const { template: _t, ...noTemplate } = TEMPLATE;
    await bad({ ...noTemplate, name: 'x' }, 'template');
    // The client's camelCase shape: column kinds and their storage are checked.
    const camel = { name: 'y', template: '<p>{{a}}</p>', selectedExternalId: 'a' };
    await bad({ ...camel, dataConfig: { a: { type: 'img', includeInExport: true } } }, 'dataConfig.a.type');
    await bad({ ...camel, dataConfig: { a: { type: 'video', includeInExport: true } } }, 'dataConfig.a.storage');
    await bad({ ...camel, dataConfig: { a: { type: 'text' } }, selectedExternalId: 'b' }, 'selectedExternalId');
    await bad({ name: 'y', template: '<p>{{a}}</p>', dataConfig: { a: { type: 'text' } } }, 'selectedExternalId');
    expect((await addTemplate({ ...TEMPLATE, name: 'lead' }, users.key.Lead)).statusCode).toBe(403);
    expect((await t.call('GET', `/v2/project/${pid}`)).json().data.project.assetBuilderTemplates).toHaveLength(1);
    // A placeholder may name a classification by its title (the client fills it with the question).
    const withQuestion = await addTemplate({
      ...camel,
      template: '<p>{{a}}</p><div>{{Weather}}</div>',
      dataConfig: { a: { type: 'text' } },
    });
    expect(withQuestion.statusCode, withQuestion.body).toBe(201);
  });

  it('imports inline content with uploadLocal: stored, served by a signed link, pre-labelled', async () => {
    const html = '<h1>Red shoe</h1><img src="https://cdn.example.com/shoe.jpg"><p>SKU-1</p>';
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        uploadLocal: true,
        assets: [
          { data: html, externalId: 'SKU-1', classifications: [{ schemaId: 'weather', answer: 'sun' }] },
          { data: '<p>second</p>' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const [first, second] = res.json().data.assets as { taskId: string; externalId: string }[];
    expect(first?.externalId).toBe('SKU-1');
    expect(second?.externalId).toMatch(/^[0-9a-f]{24}\.html$/);
    const task = (await t.call('GET', `/v2/task/${first?.taskId}`)).json().data.task;
    expect(task).toMatchObject({ isPreLabeled: true, stage: 'Label' });
    expect(task.answer.classifications).toEqual([expect.objectContaining({ schemaId: 'weather', answer: 'sun' })]);
    const link = new URL(task.asset.data as string);
    expect(link.origin).toBe('http://annotary.test');
    const served = await t.app.inject({ method: 'GET', url: link.pathname });
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe(html);
    expect(served.headers['content-security-policy']).toBe('sandbox');
    const other = (await t.call('GET', `/v2/task/${second?.taskId}`)).json().data.task;
    expect(other.isPreLabeled).toBe(false);
    expect(filesUnder(`${pid}/assets`)).toHaveLength(2);
  });

  it('refuses bad inline assets whole, leaving no file behind', async () => {
    const before = filesUnder(`${pid}/assets`).length;
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        uploadLocal: true,
        assets: [
          { data: '<p>ok</p>', externalId: 'fine' },
          { data: '<p>bad</p>', externalId: 'bad', classifications: [{ schemaId: 'nope', answer: 'x' }] },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toMatch(/^assets\[1\]\.classifications\[0\]/);
    expect(filesUnder(`${pid}/assets`)).toHaveLength(before);
    // Without uploadLocal, content is not a URL.
    const plain = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets: [{ data: '<p>x</p>' }] } });
    expect(plain.statusCode).toBe(400);
    expect(plain.json().errors[0].field).toBe('assets[0].data');
    // A Reviewer may not import: nothing is written.
    const denied = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { uploadLocal: true, assets: [{ data: '<p>x</p>' }] },
      key: users.key.Reviewer,
    });
    expect(denied.statusCode).toBe(403);
    expect(filesUnder(`${pid}/assets`)).toHaveLength(before);
  });

  it('takes uploadLocal as a boolean, the strings "true"/"false" in any case, or null [client]', async () => {
    const cloud = (body: string) => t.call('POST', `/v2/project/${pid}/cloud`, { body });
    const dataOf = async (taskId: string) => (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.asset.data;
    for (const [i, flag] of ['"false"', '"False"', 'false', 'null'].entries()) {
      const res = await cloud(`{"uploadLocal": ${flag}, "assets": [{"data": "https://cdn.example.com/${i}.jpg"}]}`);
      expect(res.statusCode, `${flag}: ${res.body}`).toBe(201);
      expect(await dataOf(res.json().data.assets[0].taskId)).toBe(`https://cdn.example.com/${i}.jpg`);
    }
    // "true" before or after the assets: content stored, a link kept as a link.
    for (const body of [
      '{"uploadLocal": "TRUE", "assets": [{"data": "<p>a</p>"}, {"data": "https://cdn.example.com/x.jpg"}]}',
      '{"assets": [{"data": "<p>a</p>"}, {"data": "https://cdn.example.com/y.jpg"}], "uploadLocal": "true"}',
    ]) {
      const res = await cloud(body);
      expect(res.statusCode, res.body).toBe(201);
      const [content, link] = res.json().data.assets as { taskId: string }[];
      expect(await dataOf(content?.taskId as string)).toMatch(/^http:\/\/annotary\.test\/files\//);
      expect(await dataOf(link?.taskId as string)).toMatch(/^https:\/\/cdn\.example\.com\/[xy]\.jpg$/);
    }
    const bad = await cloud('{"uploadLocal": "yes", "assets": [{"data": "https://cdn.example.com/z.jpg"}]}');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('uploadLocal');
  });
});
