import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Marks on a PDF (the `pdf` tool, as the original keeps them): words with one rect each, or an
 * area with none, on a page counted from 1, with the page size the numbers refer to; and angles
 * (vertex, both arms, degrees). A good one is stored and answered as sent; a malformed one is
 * refused with a 400 naming the entry, and nothing is written.
 */

const STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];
const ONTOLOGY = {
  tools: [
    { schemaId: 'clause', title: 'Clause', tool: 'pdf' },
    { schemaId: 'joint', title: 'Joint', tool: 'angle', multiple: true },
  ],
  classifications: [],
};

const rect = (x1: number, y1: number, x2: number, y2: number) => ({ x1, y1, x2, y2, width: 612, height: 792 });
const words = {
  position: {
    boundingRect: rect(120, 180, 200, 198),
    rects: [rect(120, 180, 158, 198), rect(162, 180, 200, 198)],
    pageNumber: 2,
  },
  content: { text: 'within thirty' },
};
const area = { position: { boundingRect: rect(300, 300, 450, 420), rects: [], pageNumber: 1 }, content: {} };

describe.each(ENGINES)('PDF marks in answers on %s', (engine) => {
  let t: TestApp;
  let taskId: string;
  const annotate = (tools: unknown[]) =>
    t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: { tools, classifications: [], relations: [] } } });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Contracts' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/contract.pdf' }] },
    });
    taskId = res.json().data.assets[0].taskId;
  });
  afterAll(() => t.close());

  it('stores words and an area as sent', async () => {
    const saved = await annotate([
      { schemaId: 'clause', objectId: 'w', pdf: words },
      { schemaId: 'clause', objectId: 'a', pdf: area },
    ]);
    expect(saved.statusCode, saved.body).toBe(200);
    const task = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task;
    expect(task.answer.tools.map((o: { pdf: unknown }) => o.pdf)).toEqual([words, area]);
  });

  it.each([
    ['a page counted from 0', { ...words, position: { ...words.position, pageNumber: 0 } }],
    ['no bounding rect', { ...words, position: { rects: [], pageNumber: 1 } }],
    ['a rect turned inside out', { ...words, position: { ...words.position, rects: [rect(200, 180, 120, 198)] } }],
    [
      'a rect without its page size',
      { ...words, position: { ...words.position, rects: [{ x1: 1, y1: 1, x2: 2, y2: 2 }] } },
    ],
    ['text that is not a string', { ...words, content: { text: 42 } }],
    ['no position', { content: { text: 'x' } }],
  ])('refuses %s, naming the entry, with nothing written', async (_what, pdf) => {
    const before = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer;
    const res = await annotate([{ schemaId: 'clause', pdf }]);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0].field).toBe('answer.tools[0].pdf');
    expect(res.json().errors[0].message).toMatch(/pageNumber \(from 1\)/);
    expect((await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer).toEqual(before);
  });

  it('stores an angle, and refuses one without its arms or with a measure out of range', async () => {
    const joint = { vertex: [100, 400], p1: [500, 400], p2: [400, 100], angle: 45 };
    const saved = await annotate([{ schemaId: 'joint', angle: joint }]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer.tools[0].angle).toEqual(joint);
    for (const bad of [
      { ...joint, p2: undefined },
      { ...joint, angle: -3 },
      { ...joint, vertex: [1] },
    ]) {
      const res = await annotate([{ schemaId: 'joint', angle: bad }]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors[0]).toMatchObject({ field: 'answer.tools[0].angle' });
    }
  });
});
