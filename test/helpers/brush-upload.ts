import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** Uploads a task's brush layer (POST /task/{id}/brush, raw PNG) and answers its `brushDataUrl`. */
export async function uploadBrushLayer(t: TestApp, taskId: string, png: Buffer, key = t.ownerKey): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v2/task/${taskId}/brush`,
    headers: { apikey: key, 'content-type': 'image/png' },
    payload: png,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.brushDataUrl as string;
}
