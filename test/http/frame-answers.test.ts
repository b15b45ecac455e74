import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Answers on videos and paged assets: each entry is one object (or frame-specific
 * classification) on one frame, `page` counted from 0. The API stores keyframe and stop entries
 * as sent, and refuses a `page` that is negative, not whole, or past the asset's frameTotal /
 * pageTotal (when its metadata has one), naming the entry, with nothing written; label imports
 * skip such an asset and say why.
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = {
  tools: [{ schemaId: 'car', title: 'car', tool: 'bounding-box' }],
  classifications: [
    {
      schemaId: 'light',
      title: 'Light',
      tool: 'radio',
      frameSpecific: true,
      options: [
        { schemaId: 'red', value: 'Red' },
        { schemaId: 'green', value: 'Green' },
      ],
    },
  ],
};
const box = (x: number) => ({ x, y: 10, width: 20, height: 20 });
const KEYFRAMES = [
  { schemaId: 'car', objectId: 'c1', page: 0, 'bounding-box': box(0) },
  { schemaId: 'car', objectId: 'c1', page: 30, 'bounding-box': box(60) },
  { schemaId: 'car', objectId: 'c1', page: 45, 'bounding-box': box(60), interpolationStopped: true },
];

describe.each(ENGINES)('answers on frames and pages on %s', (engine) => {
  let t: TestApp;
  let pid: string;
  const tasks: Record<string, string> = {};
  const annotate = (taskId: string, answer: Record<string, unknown>) =>
    t.call('POST', `/v2/annotate/${taskId}`, {
      body: { answer: { tools: [], classifications: [], relations: [], ...answer } },
    });
  const stored = async (taskId: string) => (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Street clips' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          {
            data: 'https://cdn.example.com/clip.mp4',
            externalId: 'clip',
            metadata: { width: 640, height: 360, frameTotal: 60, frameRate: 30 },
          },
          { data: 'https://cdn.example.com/scan.tiff', externalId: 'scan', metadata: { pageTotal: 3 } },
          { data: 'https://cdn.example.com/raw.mp4', externalId: 'raw' },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    for (const a of res.json().data.assets) tasks[a.externalId] = a.taskId;
  });
  afterAll(() => t.close());

  it('stores keyframes, the stop entry and frame-specific classifications as sent', async () => {
    const classifications = [
      { schemaId: 'light', answer: 'red', page: 0 },
      { schemaId: 'light', answer: 'green', page: 59 },
    ];
    const res = await annotate(tasks.clip as string, { tools: KEYFRAMES, classifications });
    expect(res.statusCode, res.body).toBe(200);
    const answer = await stored(tasks.clip as string);
    expect(answer.tools).toEqual(KEYFRAMES);
    expect(answer.classifications).toEqual(classifications);
  });

  it.each([
    ['clip', 'answer.tools[1].page', 60, /below 60/],
    ['clip', 'answer.tools[1].page', -1, /from 0/],
    ['clip', 'answer.tools[1].page', 2.5, /whole number/],
    ['clip', 'answer.tools[1].page', '3', /whole number/],
    ['scan', 'answer.tools[1].page', 3, /below 3/],
    ['raw', 'answer.tools[1].page', -2, /from 0/],
  ])('on %s refuses %s = %j, with nothing written', async (asset, field, page, message) => {
    const taskId = tasks[asset] as string;
    const before = await stored(taskId);
    const res = await annotate(taskId, { tools: [KEYFRAMES[0], { ...KEYFRAMES[1], page }] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ field, message: expect.stringMatching(message) });
    expect(await stored(taskId)).toEqual(before);
  });

  it('refuses a frame-specific classification past the last frame and a stop flag that is not a boolean', async () => {
    const res = await annotate(tasks.clip as string, {
      tools: [{ ...KEYFRAMES[2], interpolationStopped: 'yes' }],
      classifications: [{ schemaId: 'light', answer: 'red', page: 75 }],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'answer.tools[0].interpolationStopped',
      'answer.classifications[0].page',
    ]);
  });

  it('takes any page from 0 on an asset whose frame count is unknown', async () => {
    const res = await annotate(tasks.raw as string, { tools: [{ ...KEYFRAMES[0], page: 5000 }] });
    expect(res.statusCode, res.body).toBe(200);
    expect((await stored(tasks.raw as string)).tools[0].page).toBe(5000);
  });

  it('refuses a CVAT video track past the last frame, saying why, with nothing written', async () => {
    const xml = `<?xml version="1.0"?><annotations><meta><task><name>clip</name></task></meta>
      <track id="0" label="car"><box frame="0" xtl="0" ytl="10" xbr="20" ybr="30" outside="0" occluded="0"/>
      <box frame="90" xtl="60" ytl="10" xbr="80" ybr="30" outside="0" occluded="0"/></track></annotations>`;
    const before = await stored(tasks.clip as string);
    const res = await t.app.inject({
      method: 'POST',
      url: `/v2/project/${pid}/import/labels?format=cvat`,
      headers: { apikey: t.ownerKey, 'content-type': 'application/octet-stream' },
      payload: xml,
    });
    // The file's only asset is skipped, so nothing is imported: refused, the reason named.
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      field: 'file',
      message: expect.stringMatching(/answer\.tools\[1\]\.page must be below 60/),
    });
    expect(await stored(tasks.clip as string)).toEqual(before);
  });
});
