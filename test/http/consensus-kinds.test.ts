import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow } from '../helpers/street-scene.js';

/*
 * Consensus stages compare NER spans, points, polylines and segmentation zones as benchmark
 * scores do: two copies drawn apart score what each measure says, and leave by next[1].
 */

const ONTOLOGY = {
  tools: [
    { schemaId: 'person', title: 'Person', tool: 'ner', color: '#ff0000' },
    { schemaId: 'pin', title: 'Pin', tool: 'point', color: '#00ff00' },
    { schemaId: 'lane', title: 'Lane', tool: 'polyline', color: '#0000ff' },
    { schemaId: 'road', title: 'Road', tool: 'segmentation', color: '#ffff00' },
  ],
};

const square = (x: number, side: number) => [
  [x, 0],
  [x + side, 0],
  [x + side, side],
  [x, side],
];
/** One object of each tool: a span from `start`, a pin at x, a lane at height y, a road from x. */
const drawn = (start: number, pin: number[], laneY: number, roadX: number) => ({
  tools: [
    { schemaId: 'person', objectId: 'p', ner: { start, end: start + 10 } },
    { schemaId: 'pin', objectId: 'q', point: pin },
    {
      schemaId: 'lane',
      objectId: 'l',
      polyline: [
        [0, laneY],
        [100, laneY],
      ],
    },
    { schemaId: 'road', objectId: 'r', segmentation: { zones: [{ region: square(roadX, 10), holes: [] }] } },
  ],
});

describe.each(ENGINES)('consensus of spans, points, lines and zones on %s', (engine) => {
  let t: TestApp;
  let pid: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Kinds' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema: ONTOLOGY, stages: consensusWorkflow({ threshold: 0.8, adjudicationMethod: 'majority' }) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  const importOne = async (name: string): Promise<string> =>
    (
      await t.call('POST', `/v2/project/${pid}/cloud`, {
        body: { assets: [{ data: `https://cdn.example.com/${name}` }] },
      })
    ).json().data.assets[0].taskId;
  const copyIn = async (parent: string, stage: string): Promise<string> => {
    const res = await t.call('GET', `/v2/project/${pid}/tasks?limit=100&stage=${stage}`);
    return (res.json().data.tasks as { _id: string; parentTask: string }[]).find((c) => c.parentTask === parent)
      ?._id as string;
  };
  const submit = async (id: string, answer: unknown) => {
    const res = await t.call('POST', `/v2/annotate/${id}?nextStage=true`, { body: { answer } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const task = async (id: string) => (await t.call('GET', `/v2/task/${id}`)).json().data.task;

  it('scores each kind by its measure: copies drawn apart disagree and leave by next[1]', async () => {
    const parent = await importOne('apart.jpg');
    await submit(await copyIn(parent, 'c1'), drawn(0, [100, 100], 0, 0));
    await submit(await copyIn(parent, 'c2'), drawn(5, [106, 108], 10, 5));
    // Span 5 of 15 characters (1/3), pins 10 px apart (1/2), lanes 10 px apart (1/2), roads
    // shifted by half (1/3): mean 5/12, kept to 6 decimals.
    expect(await task(parent)).toMatchObject({ stage: 'Disputed', consensusScore: 0.416667 });
  });

  it('copies drawn alike agree fully and the majority keeps one object of each tool', async () => {
    const parent = await importOne('alike.jpg');
    await submit(await copyIn(parent, 'c1'), drawn(0, [100, 100], 0, 0));
    await submit(await copyIn(parent, 'c2'), drawn(0, [100, 100], 0, 0));
    const done = await task(parent);
    expect(done).toMatchObject({ stage: 'Done', consensusScore: 1 });
    expect(done.answer.tools.map((o: { schemaId: string }) => o.schemaId)).toEqual(['person', 'pin', 'lane', 'road']);
  });

  it('close enough is one object: pins 5 px apart agree 0.75 and are merged, not doubled', async () => {
    const parent = await importOne('close.jpg');
    const one = { tools: [{ schemaId: 'pin', objectId: 'a', point: [100, 100] }] };
    const two = { tools: [{ schemaId: 'pin', objectId: 'b', point: [104, 103] }] };
    await submit(await copyIn(parent, 'c1'), one);
    await submit(await copyIn(parent, 'c2'), two);
    const out = await task(parent);
    expect(out).toMatchObject({ stage: 'Disputed', consensusScore: 0.75 });
    expect(out.answer.tools).toHaveLength(1);
  });
});
