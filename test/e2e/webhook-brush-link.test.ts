import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { createProject, hookRig, importAssets, waitForStage } from '../helpers/webhooks.js';

/*
 * The brush layer in a webhook payload, received by a real receiver: a link signed afresh when
 * the delivery is made, valid a day (not the ten years the task keeps), serving the layer's pixels;
 * a video's layers one per frame in `brushFrames`.
 */

const W = 20;
const H = 10;

describe.each(ENGINES)('brush link of webhook payloads on %s', (engine) => {
  const rig = hookRig(engine);

  /** A project whose Label stage hands tasks to a Webhook stage posting to the receiver. */
  const hookedProject = () =>
    createProject(
      rig.t,
      [
        { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
        { id: 'Label', type: 'Label', name: 'Label', next: ['Hook'] },
        {
          id: 'Hook',
          type: 'Webhook',
          name: 'Notify us',
          next: ['Complete'],
          webhook: { url: `${rig.receiver.url}/hook` },
        },
        { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
      ],
      { tools: [{ schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' }] },
    );

  /** Uploads a layer with grass over the first `n` pixels of row 2 and answers its link. */
  const upload = async (taskId: string, n: number) => {
    const png = new PNG({ width: W, height: H });
    for (let x = 0; x < n; x++) png.data.set([0, 255, 0, 255], (2 * W + x) * 4);
    const up = await rig.t.app.inject({
      method: 'POST',
      url: `/v2/task/${taskId}/brush`,
      headers: { apikey: rig.t.ownerKey, 'content-type': 'image/png' },
      payload: PNG.sync.write(png),
    });
    expect(up.statusCode, up.body).toBe(200);
    return up.json().data.brushDataUrl as string;
  };

  /** Checks a link is signed for a day and reads grass over exactly the first `n` pixels of row 2. */
  const expectLayer = async (link: string, n: number) => {
    const expiry = Number(/\/files\/(\d+)\//.exec(link)?.[1]);
    const now = Date.now() / 1000;
    expect(expiry).toBeGreaterThan(now + 24 * 3600 - 120);
    expect(expiry).toBeLessThanOrEqual(now + 24 * 3600);
    const read = await rig.t.app.inject({ method: 'GET', url: new URL(link).pathname });
    expect(read.statusCode).toBe(200);
    const back = PNG.sync.read(read.rawPayload);
    expect([...back.data.subarray((2 * W + n - 1) * 4, (2 * W + n) * 4)]).toEqual([0, 255, 0, 255]);
    expect(back.data[(2 * W + n) * 4 + 3]).toBe(0);
    expect(back.data[(3 * W + n - 1) * 4 + 3]).toBe(0);
  };

  const payloadOf = (taskId: string) =>
    rig.receiver.received.find((r) => (r.body?.task as { taskId?: string } | undefined)?.taskId === taskId)?.body
      ?.task as {
      brushDataUrl: string | null;
      brushFrames?: { page: number; url: string }[];
    };

  it('sends a fresh link of a day that reads the layer', async () => {
    const id = await hookedProject();
    const [taskId] = await importAssets(rig.t, id, [
      { data: 'https://cdn.example.com/g.png', metadata: { width: W, height: H } },
    ]);
    const sent = await rig.t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      body: { answer: { tools: [] }, brushDataUrl: await upload(taskId as string, 5) },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await waitForStage(rig.t, taskId as string, 'Complete');

    const task = payloadOf(taskId as string);
    await expectLayer(task.brushDataUrl as string, 5);
    expect(task).not.toHaveProperty('brushFrames');
  });

  it("sends each video frame's layer as brushFrames, frame 0's as brushDataUrl, each a link of a day", async () => {
    const id = await hookedProject();
    const [taskId] = await importAssets(rig.t, id, [
      { data: 'https://cdn.example.com/g.mp4', metadata: { width: W, height: H, frameTotal: 8, frameRate: 25 } },
    ]);
    const brushFrames = [
      { page: 0, url: await upload(taskId as string, 3) },
      { page: 6, url: await upload(taskId as string, 7) },
    ];
    const sent = await rig.t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      body: { answer: { tools: [] }, brushFrames },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await waitForStage(rig.t, taskId as string, 'Complete');

    const task = payloadOf(taskId as string);
    expect(task.brushFrames?.map((f) => f.page)).toEqual([0, 6]);
    await expectLayer(task.brushDataUrl as string, 3);
    await expectLayer(task.brushFrames?.[0]?.url as string, 3);
    await expectLayer(task.brushFrames?.[1]?.url as string, 7);
  });
});
