import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Marks on a PDF (the `pdf` tool, as the original keeps them): words with one rect each, or an
 * area with none, on a page counted from 1, with the page size the numbers refer to; boxes on a
 * page with `page` counted from 0; and angles (vertex, both arms, degrees). A good one is stored
 * and answered as sent; a malformed one, or one on a page the document has not (when its
 * metadata gives `pageTotal`), is refused with a 400 naming the entry, and nothing is written.
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
    { schemaId: 'stamp', title: 'Stamp', tool: 'bounding-box', multiple: true },
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
  /** A task on a PDF whose metadata says it has 3 pages. */
  let counted: string;
  const annotate = (tools: unknown[], task = taskId) =>
    t.call('POST', `/v2/annotate/${task}`, { body: { answer: { tools, classifications: [], relations: [] } } });
  const answerOf = async (task: string) => (await t.call('GET', `/v2/task/${task}`)).json().data.task.answer;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Contracts' } })).json().data.project._id;
    await t.call('POST', `/v2/project/${pid}`, { body: { stages: STAGES, categorySchema: ONTOLOGY } });
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: {
        assets: [
          { data: 'https://cdn.example.com/contract.pdf' },
          { data: 'https://cdn.example.com/lease.pdf', metadata: { pageTotal: 3 } },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    [taskId, counted] = res.json().data.assets.map((a: { taskId: string }) => a.taskId);
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

  it('stores a box on the last page of a 3-page document, and refuses one past it or a mark on page 4', async () => {
    const box = {
      schemaId: 'stamp',
      objectId: 'b',
      page: 2,
      'bounding-box': { x: 72, y: 100, width: 150, height: 40 },
    };
    const saved = await annotate(
      [box, { schemaId: 'clause', objectId: 'w', pdf: { ...words, position: { ...words.position, pageNumber: 3 } } }],
      counted,
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const stored = await answerOf(counted);
    expect(stored.tools[0]).toMatchObject(box);
    expect(stored.tools[1].pdf.position.pageNumber).toBe(3);

    const past = await annotate([{ ...box, page: 3 }], counted);
    expect(past.statusCode, past.body).toBe(400);
    expect(past.json().errors[0]).toMatchObject({ field: 'answer.tools[0].page' });
    expect(past.json().errors[0].message).toMatch(/below 3/);
    const fourth = await annotate(
      [{ schemaId: 'clause', pdf: { ...area, position: { ...area.position, pageNumber: 4 } } }],
      counted,
    );
    expect(fourth.statusCode, fourth.body).toBe(400);
    expect(fourth.json().errors[0]).toMatchObject({ field: 'answer.tools[0].pdf.position.pageNumber' });
    expect(fourth.json().errors[0].message).toMatch(/at most 3/);
    expect(await answerOf(counted)).toEqual(stored);

    // A document whose page count is not known takes any page.
    const unknown = await annotate([{ ...box, page: 40 }]);
    expect(unknown.statusCode, unknown.body).toBe(200);
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
