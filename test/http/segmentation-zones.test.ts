import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { addRoleUsers, type RoleUsers } from '../helpers/roles.js';
import { ENGINES } from '../helpers/stores.js';
import { square } from '../helpers/rings.js';

/*
 * Segmentation objects through POST /annotate: zones with holes kept as sent (rings opened),
 * and every malformed zone refused with the path of the offending ring, nothing saved.
 */

const ONTOLOGY = {
  tools: [
    { schemaId: 'lake', title: 'Lake', tool: 'segmentation', color: '#0000ff' },
    { schemaId: 'road', title: 'Road', tool: 'polygon', color: '#00ff00' },
  ],
  classifications: [],
};

describe.each(ENGINES)('segmentation zones on %s', (engine) => {
  let t: TestApp;
  let taskId: string;
  let users: RoleUsers;
  const annotate = (segmentation: unknown) =>
    t.call('POST', `/v2/annotate/${taskId}`, {
      body: { answer: { tools: [{ schemaId: 'lake', objectId: 'l1', segmentation }] } },
    });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const pid = (await t.call('POST', '/v2/project', { body: { name: 'Lakes' } })).json().data.project._id;
    expect((await t.call('POST', `/v2/project/${pid}`, { body: { categorySchema: ONTOLOGY } })).statusCode).toBe(200);
    const imported = await t.call('POST', `/v2/project/${pid}/cloud`, {
      body: { assets: [{ data: 'https://cdn.example.com/lake.png', metadata: { width: 60, height: 40 } }] },
    });
    taskId = imported.json().data.assets[0].taskId;
    users = await addRoleUsers(t, pid, engine);
  });
  afterAll(() => t.close());

  it('keeps zones with holes, several zones touching along an edge, a closing point dropped', async () => {
    const closed = [...square(0, 0, 100), [0, 0]];
    const segmentation = {
      zones: [{ region: closed, holes: [square(10, 10, 20), square(50, 50, 10)] }, { region: square(100, 0, 50) }],
    };
    const res = await annotate(segmentation);
    expect(res.statusCode, res.body).toBe(200);
    const saved = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer.tools[0];
    expect(saved.segmentation).toEqual({
      zones: [
        { region: square(0, 0, 100), holes: [square(10, 10, 20), square(50, 50, 10)] },
        { region: square(100, 0, 50), holes: [] },
      ],
    });
  });

  it('refuses malformed zones naming the ring, and saves nothing', async () => {
    const before = (await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer;
    const bowtie = [
      [0, 0],
      [10, 10],
      [10, 0],
      [0, 10],
    ];
    const base = 'answer.tools[0].segmentation';
    const cases: [unknown, string, RegExp][] = [
      [undefined, base, /zones/],
      [{ zones: [] }, base, /zones/],
      [[[0, 0]], base, /zones/],
      [
        {
          zones: [
            {
              region: [
                [0, 0],
                [1, 1],
              ],
            },
          ],
        },
        `${base}.zones[0].region`,
        /at least 3/,
      ],
      [
        {
          zones: [
            {
              region: [
                [0, 0],
                [1, 1],
                [0, 0],
              ],
            },
          ],
        },
        `${base}.zones[0].region`,
        /at least 3/,
      ],
      [
        {
          zones: [
            {
              region: [
                [0, 0],
                [1, 1],
                [2, 2],
              ],
            },
          ],
        },
        `${base}.zones[0].region`,
        /area/,
      ],
      [
        {
          zones: [
            {
              region: [
                [0, 0],
                [1, 'a'],
                [2, 0],
              ],
            },
          ],
        },
        `${base}.zones[0].region[1]`,
        /two finite numbers/,
      ],
      [{ zones: [{ region: bowtie }] }, `${base}.zones[0].region`, /crosses itself/],
      [{ zones: [{ region: square(0, 0, 10), holes: [bowtie] }] }, `${base}.zones[0].holes[0]`, /crosses itself/],
      [{ zones: [{ region: square(0, 0, 10), holes: [square(5, 5, 10)] }] }, `${base}.zones[0].holes[0]`, /inside/],
      [{ zones: [{ region: square(0, 0, 10), holes: [square(20, 20, 2)] }] }, `${base}.zones[0].holes[0]`, /inside/],
      [{ zones: [{ region: square(0, 0, 10), holes: 'none' }] }, `${base}.zones[0].holes`, /array/],
      [
        { zones: [{ region: square(0, 0, 10) }, { region: square(5, 5, 10) }] },
        `${base}.zones[1]`,
        /overlaps zones\[0\]/,
      ],
      [{ zones: [{ region: square(0, 0, 10) }, { region: square(0, 0, 10) }] }, `${base}.zones[1]`, /overlaps/],
      [{ zones: [{ region: square(0, 0, 10) }, { region: square(2, 2, 3) }] }, `${base}.zones[1]`, /overlaps/],
    ];
    for (const [segmentation, field, message] of cases) {
      const res = await annotate(segmentation);
      expect(res.statusCode, `${JSON.stringify(segmentation)} ${res.body}`).toBe(400);
      expect(res.json().errors, JSON.stringify(segmentation)).toEqual([
        { field, message: expect.stringMatching(message) },
      ]);
    }
    expect((await t.call('GET', `/v2/task/${taskId}`)).json().data.task.answer).toEqual(before);
  });

  it('accepts a zone inside the hole of another zone of the same object', async () => {
    const res = await annotate({
      zones: [{ region: square(0, 0, 100), holes: [square(20, 20, 60)] }, { region: square(30, 30, 20) }],
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('draws one object alone as a PNG mask of the image size for readers of the task, 404 for anyone else', async () => {
    const tools = [
      {
        schemaId: 'lake',
        objectId: 'ring',
        segmentation: { zones: [{ region: square(10, 10, 20), holes: [square(15, 15, 5)] }] },
      },
      {
        schemaId: 'road',
        objectId: 'tri',
        polygon: [
          [40, 0],
          [60, 0],
          [60, 20],
        ],
      },
    ];
    expect((await t.call('POST', `/v2/annotate/${taskId}`, { body: { answer: { tools } } })).statusCode).toBe(200);
    const mask = async (objectId: string, key?: string) =>
      t.call('GET', `/v2/mask?annotation=${objectId}&task=${taskId}`, key ? { key } : {});

    const res = await mask('ring');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const png = PNG.sync.read(res.rawPayload);
    expect([png.width, png.height]).toEqual([60, 40]);
    const inside = (x: number, y: number) => png.data[(y * 60 + x) * 4 + 3] === 255;
    let count = 0;
    for (let y = 0; y < 40; y++) for (let x = 0; x < 60; x++) if (inside(x, y)) count++;
    // 20x20 less the 5x5 hole, pixel centres inside.
    expect(count).toBe(400 - 25);
    expect([inside(10, 10), inside(29, 29), inside(17, 17), inside(9, 10), inside(30, 10)]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // The polygon object: a right triangle of 20x20, about half its square.
    const tri = PNG.sync.read((await mask('tri')).rawPayload);
    let triCount = 0;
    for (let i = 3; i < tri.data.length; i += 4) if (tri.data[i] === 255) triCount++;
    expect(triCount).toBeGreaterThan(180);
    expect(triCount).toBeLessThan(220);

    expect((await mask('ring', users.key.Reviewer)).statusCode).toBe(200);
    for (const key of [users.key.Labeler, users.key.outsider]) expect((await mask('ring', key)).statusCode).toBe(404);
    expect((await mask('nothing')).statusCode).toBe(404);
    const missing = await t.call('GET', `/v2/mask?task=${taskId}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors[0].field).toBe('annotation');
  });

  it('an issue on a segmentation object may keep the point of the mask it is pinned at; on another object it may not', async () => {
    const res = await t.call('POST', `/v2/annotate/${taskId}`, {
      body: {
        answer: {
          tools: [
            {
              schemaId: 'lake',
              objectId: 'ring',
              segmentation: { zones: [{ region: square(0, 0, 40), holes: [square(10, 10, 20)] }] },
            },
            { schemaId: 'road', objectId: 'p1', polygon: square(45, 0, 10) },
          ],
        },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const onMask = await t.call('POST', '/v2/issues', {
      body: { labelTask: taskId, content: 'Too wide here', objectId: 'ring', position: '[5, 20]' },
    });
    expect(onMask.statusCode, onMask.body).toBeLessThan(300);
    const issues = (await t.call('GET', `/v2/issues?labelTask=${taskId}`)).json().data.issues;
    expect(issues.find((i: { content: string }) => i.content === 'Too wide here')).toMatchObject({
      objectId: 'ring',
      position: '[5, 20]',
    });
    const onPolygon = await t.call('POST', '/v2/issues', {
      body: { labelTask: taskId, content: 'Not here', objectId: 'p1', position: '[50, 5]' },
    });
    expect(onPolygon.statusCode).toBe(400);
    expect(onPolygon.json().errors[0].field).toBe('objectId');
  });
});
