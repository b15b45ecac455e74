import fs from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { recordAnswers, type RecordedAnswer } from '../helpers/answer-recorder.js';
import { startS3rver } from '../helpers/emulators.js';
import { driveEveryOperation, pluginBehaviour, type Fixtures } from '../helpers/every-operation.js';
import { startPluginServer, type PluginServer } from '../helpers/plugin-server.js';
import { ENGINES } from '../helpers/stores.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { startDeliveryWorker } from '../helpers/webhooks.js';

describe.each(ENGINES)('every answer matches the OpenAPI document on %s', (engine) => {
  let t: TestApp;
  let fx: Fixtures;
  let answers: RecordedAnswer[] = [];
  let stopWorker: () => Promise<void>;
  beforeAll(async () => {
    t = await makeTestApp(engine, {
      env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true', ANNOTARY_DEFAULT_PLAN: 'enterprise' },
      beforeRoutes: (app) => {
        answers = recordAnswers(app);
      },
    });
    const apiUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    let plugin: PluginServer | undefined;
    plugin = await startPluginServer(apiUrl, t.ownerKey, pluginBehaviour(() => plugin as PluginServer));
    fx = { s3: await startS3rver(), plugin, receiver: await startReceiver() };
    const worker = startDeliveryWorker(t);
    stopWorker = () => worker.stop();
  });
  afterAll(async () => {
    await stopWorker?.();
    await fx?.plugin.close();
    await fx?.receiver.close();
    await fx?.s3.stop();
    await t?.close();
  });

  it('drives every operation', async () => {
    await driveEveryOperation(t, fx);
    fs.writeFileSync(`/tmp/apidoc-answers-${engine}.json`, JSON.stringify(answers, null, 1));
  });
});
