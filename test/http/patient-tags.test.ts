import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { unzip } from '../helpers/exports.js';
import { ENGINES } from '../helpers/stores.js';
import { waitFor } from '../helpers/wait.js';
import { createProject, hookRig, hookWorkflow, importAssets } from '../helpers/webhooks.js';

/*
 * The DICOM tags that identify a patient, put in a DICOM asset's metadata by its importer (by
 * keyword or by tag number, at any depth), stay out of a JSON export and of a webhook's payload
 * (received by a real receiver on 127.0.0.1) unless the project sets `patientTagsExported`; the
 * other metadata goes out as it is.
 */

const METADATA = {
  width: 64,
  height: 48,
  pageTotal: 1,
  Modality: 'CT',
  PatientName: 'Doe^Jane',
  PatientID: 'P-1',
  dicom: { '(0010,0030)': '19700101', x00080050: 'ACC-9', SeriesDescription: 'Abdomen' },
};
/** METADATA without the patient's tags. */
const KEPT = { width: 64, height: 48, pageTotal: 1, Modality: 'CT', dicom: { SeriesDescription: 'Abdomen' } };

describe.each(ENGINES)("a patient's DICOM tags in exports on %s", (engine) => {
  let t: TestApp;
  let pid: string;

  const exported = async () => {
    const res = await t.call('GET', `/v2/exportV3?project=${pid}&format=json`);
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().data.exportPath as string);
    const zip = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
    const items = JSON.parse((await unzip(zip.rawPayload))[0]?.text ?? '[]') as { metadata: unknown }[];
    return items[0]?.metadata;
  };

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Scans' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://pacs.example.com/ct.dcm', metadata: METADATA }] },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(() => t.close());

  it('leaves the patient tags out by default and keeps the rest', async () => {
    expect(await exported()).toEqual(KEPT);
    expect((await t.call('GET', `/v2/project/${pid}`)).json().data.project.patientTagsExported).toBe(false);
  });

  it('exports them when the project opts in', async () => {
    const bad = await t.call('POST', `/v2/project/${pid}`, { body: { patientTagsExported: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('patientTagsExported');
    const on = await t.call('POST', `/v2/project/${pid}`, { body: { patientTagsExported: true } });
    expect(on.statusCode, on.body).toBe(200);
    expect(await exported()).toEqual(METADATA);
  });
});

describe.each(ENGINES)("a patient's DICOM tags in webhook payloads on %s", (engine) => {
  const rig = hookRig(engine);

  it('sends them only from a project that opts in', async () => {
    const { t, receiver } = rig;
    const projects: Record<string, string> = {};
    for (const name of ['closed', 'open']) {
      projects[name] = await createProject(t, hookWorkflow({ url: `${receiver.url}/${name}` }));
    }
    const opt = await t.call('POST', `/v2/project/${projects.open}`, { body: { patientTagsExported: true } });
    expect(opt.statusCode, opt.body).toBe(200);
    for (const name of ['closed', 'open']) {
      await importAssets(t, projects[name] as string, [
        { data: `https://pacs.example.com/${name}.dcm`, externalId: name, metadata: METADATA },
      ]);
    }
    await waitFor(async () => receiver.received.length >= 2, 'both deliveries', 20_000, 50);
    const sent = Object.fromEntries(receiver.received.map((r) => [r.path, r.body]));
    expect(Object.keys(sent).sort()).toEqual(['/closed', '/open']);
    expect(sent['/closed']?.externalId).toBe('closed');
    expect(sent['/closed']?.metadata).toEqual(KEPT);
    expect(receiver.received.find((r) => r.path === '/closed')?.raw.toString('utf8')).not.toMatch(
      /Doe|P-1|19700101|ACC-9/,
    );
    expect(sent['/open']?.metadata).toEqual(METADATA);
  });
});
