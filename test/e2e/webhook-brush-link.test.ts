import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { createProject, hookRig, importAssets, waitForStage } from '../helpers/webhooks.js';

/*
 * The brush layer in a webhook payload, received by a real receiver: a link signed afresh when
 * the delivery is made, valid a day (not the ten years the task keeps), serving the layer's pixels.
 */

const W = 20;
const H = 10;

describe.each(ENGINES)('brush link of webhook payloads on %s', (engine) => {
  const rig = hookRig(engine);

  it('sends a fresh link of a day that reads the layer', async () => {
    const { t, receiver } = rig;
    const ontology = { tools: [{ schemaId: 'grass', title: 'Grass', tool: 'brush', color: '#00ff00' }] };
    const id = await createProject(
      t,
      [
        { id: 'Start', type: 'Start', name: 'Start', next: ['Label'] },
        { id: 'Label', type: 'Label', name: 'Label', next: ['Hook'] },
        {
          id: 'Hook',
          type: 'Webhook',
          name: 'Notify us',
          next: ['Complete'],
          webhook: { url: `${receiver.url}/hook` },
        },
        { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
      ],
      ontology,
    );
    const [taskId] = await importAssets(t, id, [
      { data: 'https://cdn.example.com/g.png', metadata: { width: W, height: H } },
    ]);
    const png = new PNG({ width: W, height: H });
    for (let x = 0; x < 5; x++) png.data.set([0, 255, 0, 255], (2 * W + x) * 4);
    const up = await t.app.inject({
      method: 'POST',
      url: `/v2/task/${taskId}/brush`,
      headers: { apikey: t.ownerKey, 'content-type': 'image/png' },
      payload: PNG.sync.write(png),
    });
    expect(up.statusCode, up.body).toBe(200);
    const sent = await t.call('POST', `/v2/annotate/${taskId}?nextStage=true`, {
      body: { answer: { tools: [] }, brushDataUrl: up.json().data.brushDataUrl },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await waitForStage(t, taskId as string, 'Complete');

    const link = (receiver.received[0]?.body?.task as { brushDataUrl: string }).brushDataUrl;
    const expiry = Number(/\/files\/(\d+)\//.exec(link)?.[1]);
    const now = Date.now() / 1000;
    expect(expiry).toBeGreaterThan(now + 24 * 3600 - 120);
    expect(expiry).toBeLessThanOrEqual(now + 24 * 3600);
    const url = new URL(link);
    const read = await t.app.inject({ method: 'GET', url: url.pathname });
    expect(read.statusCode).toBe(200);
    const back = PNG.sync.read(read.rawPayload);
    expect([...back.data.subarray((2 * W + 4) * 4, (2 * W + 4) * 4 + 4)]).toEqual([0, 255, 0, 255]);
    expect(back.data[(3 * W + 4) * 4 + 3]).toBe(0);
  });
});
