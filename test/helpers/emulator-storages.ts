import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, S3RVER_KEYS } from './emulators.js';

/** Creates a storage through the API and answers its id. */
export async function createStorage(t: TestApp, body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', '/v2/storages', { body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.storage._id as string;
}

/** The storages `s3` (on s3rver) and `azure` (on Azurite) of the test app's organization, by name. */
export async function createEmulatorStorages(
  t: TestApp,
  s3: { url: string },
  azurite: { serviceUrl: string },
): Promise<{ s3: string; azure: string }> {
  return {
    s3: await createStorage(t, {
      name: 's3',
      provider: 'CUSTOM_S3',
      host: s3.url,
      publicKey: S3RVER_KEYS.accessKeyId,
      privateKey: S3RVER_KEYS.secretAccessKey,
    }),
    azure: await createStorage(t, {
      name: 'azure',
      provider: 'AZURE',
      publicKey: AZURITE_ACCOUNT,
      privateKey: AZURITE_KEY,
      host: azurite.serviceUrl,
    }),
  };
}
