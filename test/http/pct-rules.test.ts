import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { importPctTask } from '../helpers/pct-assets.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * What a pct ontology asks of answers beyond each entry's geometry, checked on save through
 * POST /annotate on both engines: a tool's preset cuboid dimensions and edge length constraint,
 * and the classifications' attributeMode, attributeLevel and associatedMarkingTool. Each refusal
 * names the field and keeps the answer saved before.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const frameUrls = [0, 1, 2].map((f) => `https://data.example/drive/00000${f}.pcd`);

const categorySchema = {
  tools: [
    {
      schemaId: 'car',
      title: 'Car',
      tool: 'pct',
      markingTools: ['cuboid', 'polygon'],
      presetCuboidDimensions: true,
      cuboidLength: '4.5',
      cuboidWidth: 1.8,
      cuboidHeight: '1.6',
      edgeLengthConstraint: '10',
      classifications: [
        {
          schemaId: 'parked',
          title: 'Parked',
          tool: 'radio',
          attributeMode: 'Constant',
          attributeLevel: 'Instance Level',
          associatedMarkingTool: ['cuboid'],
        },
        { schemaId: 'brake', title: 'Brake lights', tool: 'checkbox', attributeMode: 'Time Varying' },
        { schemaId: 'occluded', title: 'Occluded', tool: 'checkbox', attributeMode: 'Sensor Specific' },
        { schemaId: 'make', title: 'Make', tool: 'text', attributeLevel: 'Class Level' },
      ],
    },
    { schemaId: 'lane', title: 'Lane', tool: 'pct', markingTools: ['polyline'], edgeLengthConstraint: '5' },
  ],
  classifications: [
    { schemaId: 'weather', title: 'Weather', tool: 'radio', attributeMode: 'Constant', attributeLevel: 'Class Level' },
    { schemaId: 'lighting', title: 'Lighting', tool: 'radio', attributeMode: 'Time Varying' },
    { schemaId: 'ego', title: 'Ego state', tool: 'text', attributeLevel: 'Instance Level' },
  ],
};

const cuboid = (x: number, dims: Json = {}) => ({
  center: { x, y: 2, z: 0.8 },
  dimensions: { length: 4.5, width: 1.8, height: 1.6, ...dims },
  yaw: 0.2,
});
const car = (objectId: string, page: number, x: number, extra: Json = {}) => ({
  objectId,
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'cuboid',
  page,
  cuboid: cuboid(x),
  ...extra,
});
/** A 3D polygon of the car tool through points of the ground plane. */
const carPolygon = (points: [number, number][], extra: Json = {}) => ({
  objectId: 'p',
  schemaId: 'car',
  tool: 'pct',
  markingTool: 'polygon',
  page: 0,
  points: points.map(([x, y]) => ({ x, y, z: 0 })),
  ...extra,
});
const lane = (points: [number, number][]) => ({
  objectId: 'lane1',
  schemaId: 'lane',
  tool: 'pct',
  markingTool: 'polyline',
  page: 0,
  points: points.map(([x, y]) => ({ x, y, z: 0 })),
});

describe.each(ENGINES)('pct ontology rules on %s', (engine) => {
  let t: TestApp;
  let taskId: string;
  let pid: string;
  const annotate = (answer: Json) => t.call('POST', `/v2/annotate/${taskId}`, { body: { answer } });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const created = await t.call('POST', '/v2/project', {
      body: { name: 'Rules', type: 'pct' },
    });
    expect(created.statusCode, created.body).toBe(201);
    pid = created.json().data.project._id;
    const set = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema, pctConfig: { allowOverlapping: true } },
    });
    expect(set.statusCode, set.body).toBe(200);
    taskId = await importPctTask(t, pid, frameUrls);
  });
  afterAll(() => t?.close());

  it('keeps an answer that meets every rule', async () => {
    const answer = {
      tools: [
        car('a', 0, 8, {
          cuboid: cuboid(8, { length: 4.5000001 }),
          classifications: [
            { schemaId: 'parked', answer: 'yes' },
            { schemaId: 'brake', answer: ['on'], page: 0 },
            { schemaId: 'occluded', answer: ['yes'], page: 0, sensor: 'front' },
            { schemaId: 'make', answer: 'Volvo' },
          ],
        }),
        car('a', 2, 9, { classifications: [{ schemaId: 'parked', answer: 'yes' }] }),
        car('b', 0, 20, { classifications: [{ schemaId: 'make', answer: 'Volvo' }] }),
        carPolygon(
          [
            [0, 0],
            [6, 0],
            [6, 6],
          ],
          { page: 1 },
        ),
        lane([
          [0, 0],
          [4, 0],
          [8, 0],
        ]),
      ],
      classifications: [
        { schemaId: 'weather', answer: 'sun' },
        { schemaId: 'lighting', answer: 'day', page: 0 },
        { schemaId: 'lighting', answer: 'dusk', page: 2 },
      ],
    };
    const res = await annotate(answer);
    expect(res.statusCode, res.body).toBe(200);
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.answer.tools).toEqual(answer.tools);
    expect(task.answer.classifications).toEqual(answer.classifications);
  });

  it('refuses what breaks the tool sizes or the attribute rules, naming the field, keeping the saved answer', async () => {
    const cases: [Json, string, RegExp][] = [
      [
        { tools: [car('a', 0, 8, { cuboid: cuboid(8, { length: 5 }) })] },
        'answer.tools[0].cuboid.dimensions.length',
        /must be 4.5 m, the tool's preset length/,
      ],
      [
        { tools: [car('a', 0, 8, { cuboid: cuboid(8, { width: 2.2 }) })] },
        'answer.tools[0].cuboid.dimensions.width',
        /must be 1.8 m/,
      ],
      [
        {
          tools: [
            carPolygon([
              [0, 0],
              [3, 0],
              [3, 12],
            ]),
          ],
        },
        'answer.tools[0].points[2]',
        /edge from point 1 is 12.000 m, longer than the tool's edge length constraint of 10 m/,
      ],
      [
        {
          tools: [
            lane([
              [0, 0],
              [4, 0],
              [10, 0],
            ]),
          ],
        },
        'answer.tools[0].points[2]',
        /6.000 m, longer than .* 5 m/,
      ],
      [
        { tools: [car('a', 0, 8, { classifications: [{ schemaId: 'brake', answer: ['on'] }] })] },
        'answer.tools[0].classifications[0].page',
        /"brake" is Time Varying/,
      ],
      [
        { tools: [car('a', 0, 8, { classifications: [{ schemaId: 'occluded', answer: ['yes'], page: 0 }] })] },
        'answer.tools[0].classifications[0].sensor',
        /answered per sensor/,
      ],
      [
        {
          tools: [
            car('a', 0, 8, { classifications: [{ schemaId: 'occluded', answer: ['yes'], page: 0, sensor: 'rear' }] }),
          ],
        },
        'answer.tools[0].classifications[0].sensor',
        /no sensor "rear"/,
      ],
      [
        { tools: [car('a', 0, 8, { classifications: [{ schemaId: 'parked', answer: 'yes', page: 0 }] })] },
        'answer.tools[0].classifications[0].page',
        /"parked" is Constant/,
      ],
      [
        {
          tools: [
            car('a', 0, 8, { classifications: [{ schemaId: 'parked', answer: 'yes' }] }),
            car('a', 1, 9, { classifications: [{ schemaId: 'parked', answer: 'no' }] }),
          ],
        },
        'answer.tools[1].classifications[0].answer',
        /differs from answer.tools\[0\].classifications\[0\]: "parked" is Constant/,
      ],
      [
        {
          tools: [
            car('a', 0, 8, { classifications: [{ schemaId: 'make', answer: 'Volvo' }] }),
            car('b', 0, 20, { classifications: [{ schemaId: 'make', answer: 'Saab' }] }),
          ],
        },
        'answer.tools[1].classifications[0].answer',
        /"make" is Class Level, one answer for every object of the class/,
      ],
      [
        {
          tools: [
            carPolygon(
              [
                [0, 0],
                [1, 0],
                [1, 1],
              ],
              { classifications: [{ schemaId: 'parked', answer: 'yes' }] },
            ),
          ],
        },
        'answer.tools[0].classifications[0]',
        /"parked" answers objects drawn with cuboid, not polygon/,
      ],
      [
        { classifications: [{ schemaId: 'ego', answer: 'moving' }] },
        'answer.classifications[0]',
        /"ego" is Instance Level: it is answered on an object/,
      ],
      [
        { classifications: [{ schemaId: 'lighting', answer: 'day' }] },
        'answer.classifications[0].page',
        /"lighting" is Time Varying/,
      ],
      [
        {
          classifications: [
            { schemaId: 'weather', answer: 'sun' },
            { schemaId: 'weather', answer: 'rain' },
          ],
        },
        'answer.classifications[1].answer',
        /"weather" is Constant/,
      ],
    ];
    for (const [answer, field, message] of cases) {
      const res = await annotate(answer);
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      const error = (res.json().errors as Json[]).find((e) => e.field === field);
      expect(error?.message, `${field} in ${res.body}`).toMatch(message);
    }
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.answer.tools).toHaveLength(5);
  });

  it('stores the tool sizes as strings, as the contract says', async () => {
    const got = (await t.call('GET', `/v2/project/${pid}`)).json().data.project.categorySchema.tools[0];
    expect(got).toMatchObject({ cuboidLength: '4.5', cuboidWidth: '1.8', cuboidHeight: '1.6' });
  });
});
