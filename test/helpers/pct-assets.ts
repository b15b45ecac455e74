import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { SCENE_CAMERA } from './pointcloud-scene.js';

/**
 * Imports one pct asset given as URLs (the lidar frames, and the scene's front camera with an
 * image per frame of the same base name) into a project, and answers its task's id.
 */
export async function importPctTask(t: TestApp, projectId: string, frameUrls: string[], externalId = 'd') {
  const camera = { ...SCENE_CAMERA, images: frameUrls.map((u) => u.replace('.pcd', '.jpg')) };
  const res = await t.call('POST', `/v2/project/${projectId}/cloud`, {
    body: {
      assets: [{ data: frameUrls[0], dataset: frameUrls, editorType: 'pct', externalId, pct: { cameras: [camera] } }],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.assets[0].taskId as string;
}
