import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The original Python client's four import calls (`upload_files`, `create_asset_builder_template`,
 * the template listing, `upload_files_with_asset_builder`), sent by Debian's Python with
 * `requests` exactly as the client sends them (test/client/python/client_imports.py), to a
 * server on a real socket: `uploadLocal` as the string "true", the template in camelCase.
 */

const run = promisify(execFile);
const SCRIPT = path.join(import.meta.dirname, 'python', 'client_imports.py');

/** A free local port, so the server's public URL (in its upload links) is the one it listens on. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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

interface Call {
  status: number;
  body: { data: Record<string, unknown> };
}
interface ClientRun {
  uploadFiles: Call;
  createTemplate: Call;
  templates: Record<string, unknown>[];
  builderUpload: Call;
}

describe.each(ENGINES)("the Python client's import calls on %s", (engine) => {
  let t: TestApp;
  let base: string;
  let work: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await makeTestApp(engine, { env: { ANNOTARY_PUBLIC_URL: base } });
    await t.app.listen({ port, host: '127.0.0.1' });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-pyclient-'));
  });
  afterAll(async () => {
    fs.rmSync(work, { recursive: true, force: true });
    await t.close();
  });

  it('upload_files, create_asset_builder_template, its listing and upload_files_with_asset_builder pass', async () => {
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Client' } })).json().data.project._id as string;
    await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } });
    const { stdout } = await run('/usr/bin/python3', [SCRIPT, base, t.ownerKey, pid, work]);
    const out = JSON.parse(stdout) as ClientRun;

    // upload_files: the upload links are imported as links, not stored as content.
    expect(out.uploadFiles.status, JSON.stringify(out.uploadFiles.body)).toBe(201);
    expect(out.uploadFiles.body.data.assetsCreated).toBe(2);
    const assets = (await t.call('GET', `/v2/project/${pid}/assets?limit=10`)).json().data.assets as {
      data: string;
      externalId: string;
      metadata: unknown;
    }[];
    const uploaded = assets.filter((a) => a.externalId.endsWith('.png'));
    expect(uploaded.map((a) => path.basename(a.externalId)).sort()).toEqual(['first.png', 'second.png']);
    for (const a of uploaded) {
      expect(a.data).toMatch(new RegExp(`^${base}/files/\\d+/[^/]+/${pid}/assets/[^/]+/[0-9a-f]{32}\\.png$`));
      const link = (await t.call('GET', `/v2/getSignedUrl?name=${encodeURIComponent(a.data)}&project=${pid}`)).json()
        .data.signedUrl as string;
      const bytes = Buffer.from(await (await fetch(link)).arrayBuffer());
      expect(bytes.subarray(8).toString()).toBe(path.basename(a.externalId));
    }

    // create_asset_builder_template and the listing the client reads back, in camelCase.
    expect(out.createTemplate.status, JSON.stringify(out.createTemplate.body)).toBe(201);
    expect(out.templates).toHaveLength(1);
    expect(out.templates[0]).toMatchObject({
      name: 'Product card',
      batchColumn: '',
      selectedExternalId: 'sku',
      dataConfig: { picture: { type: 'image', storage: 'Public', includeInExport: false } },
      preLabelConfig: { weather: { value: 'weather' } },
    });

    // upload_files_with_asset_builder: HTML content stored, pre-labelled from the CSV.
    expect(out.builderUpload.status, JSON.stringify(out.builderUpload.body)).toBe(201);
    const built = out.builderUpload.body.data.assets as { externalId: string; taskId: string }[];
    expect(built.map((a) => a.externalId)).toEqual(['SKU-1', 'SKU-2']);
    const task = (await t.call('GET', `/v2/task/${built[0]?.taskId}`)).json().data.task;
    expect(task.isPreLabeled).toBe(true);
    expect(task.answer.classifications).toEqual([expect.objectContaining({ schemaId: 'weather', answer: 'sun' })]);
    const filters = encodeURIComponent(JSON.stringify({ externalId: 'SKU-1' }));
    const asset = (await t.call('GET', `/v2/project/${pid}/assets?filters=${filters}`)).json().data.assets[0];
    expect(asset.contextData).toEqual({ sku: 'SKU-1' });
    const html = await (await fetch(task.asset.data as string)).text();
    expect(html).toBe('<h1>Red shoe</h1><img src="https://cdn.example.com/shoe.jpg"><p>SKU-1</p>');
  });
});
