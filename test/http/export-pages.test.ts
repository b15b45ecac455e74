import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framed } from '../../src/services/exports/export-chunks.js';
import { taskPages } from '../../src/services/exports/export-items.js';
import type { ExportPlan } from '../../src/services/exports/export-options.js';
import type { Stage } from '../../src/schemas/stage.js';
import type { PageLimits } from '../../src/store/repositories/export.repository.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ONTOLOGY, STAGES } from '../helpers/export-fixture.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * Export pages bounded by tasks and by bytes. A project of 23 tasks imported in one request (so
 * they share a creation time and the keyset falls back on ids at every page boundary), some
 * labelled, one sent round Label and Review six times with a large answer: its history alone is
 * larger than the byte budget used here. Read in pages of at most 4 tasks and 40 KB, the export
 * must be byte for byte the export read in one page: no task lost or doubled at a boundary, every
 * history entry in place, and the large task read on a page of its own.
 */

const STAGE_LIST = STAGES as Stage[];
const PLAN: ExportPlan = {
  type: 'task',
  format: 'ndjson',
  includeMetadata: true,
  includeHistory: true,
  includeSegmentationPoints: false,
  includeMask: false,
  includeOnlyKeyFrames: false,
  taskTypes: ['default'],
};
const SMALL: PageLimits = { tasks: 4, bytes: 40_000 };
const ONE_PAGE: PageLimits = { tasks: 10_000, bytes: Number.MAX_SAFE_INTEGER };
const box = (i: number) => ({
  schemaId: 'car',
  objectId: `box-${i}`,
  'bounding-box': { x: i, y: i * 2, width: 30 + i, height: 40 },
});

describe.each(ENGINES)('export pages on %s', (engine) => {
  let t: TestApp;
  let projectId: string;
  let taskIds: string[];
  let bigTask: string;

  const ok = async (method: string, url: string, body: unknown) => {
    const res = await t.call(method, url, { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    projectId = (await ok('POST', '/v2/project', { name: 'Pages' })).data.project._id;
    await ok('POST', `/v2/project/${projectId}`, { stages: STAGES, categorySchema: ONTOLOGY });
    const assets = Array.from({ length: 23 }, (_, i) => ({
      data: `https://cdn.example.com/p/${i}.jpg`,
      metadata: { i },
    }));
    const imported = (await ok('POST', `/v2/project/${projectId}/cloud`, { assets })).data.assets as {
      taskId: string;
    }[];
    taskIds = imported.map((a) => a.taskId);
    // Every third task labelled once: a history entry of its own.
    for (const id of taskIds.filter((_, i) => i % 3 === 0)) {
      await ok('POST', `/v2/annotate/${id}?nextStage=true`, { answer: { tools: [box(1)] }, duration: 10 });
    }
    // Task 10: six rounds of Label and a rejecting Review, each entry holding a ~14 KB answer.
    bigTask = taskIds[10] as string;
    const big = { tools: Array.from({ length: 150 }, (_, i) => box(i)) };
    for (let round = 0; round < 6; round++) {
      await ok('POST', `/v2/annotate/${bigTask}?nextStage=true`, { answer: big, duration: 10 });
      await ok('POST', `/v2/review/${bigTask}`, { reviewStatus: 'Rejected' });
    }
  });
  afterAll(() => t.close());

  /** The items of each page, as parsed JSON. */
  const pagesOf = async (limits: PageLimits) => {
    const pages: { task: { taskId: string; stageHistory: unknown[] } }[][] = [];
    const next = taskPages(t.store.db, projectId, PLAN, STAGE_LIST, limits);
    for (let page = await next(); page; page = await next()) {
      pages.push(
        Array.from({ length: page.size }, (_, i) => {
          let text = '';
          page.write({ write: (s) => void (text += s) }, i);
          return JSON.parse(text) as { task: { taskId: string; stageHistory: unknown[] } };
        }),
      );
    }
    return pages;
  };
  const ndjson = async (limits: PageLimits) => {
    const chunks: Buffer[] = [];
    for await (const chunk of framed(taskPages(t.store.db, projectId, PLAN, STAGE_LIST, limits), 'ndjson')) {
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  };

  it('reads the same export in small pages as in one, each task once and in order', async () => {
    const whole = await ndjson(ONE_PAGE);
    expect(await ndjson(SMALL)).toBe(whole);
    // Every task a candidate of the first page, the budget cutting it before the large task.
    expect(await ndjson({ tasks: 100, bytes: SMALL.bytes })).toBe(whole);
    const ids = whole
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { task: { taskId: string } }).task.taskId);
    expect([...ids].sort()).toEqual([...taskIds].sort());
    expect(new Set(ids).size).toBe(taskIds.length);
  });

  it('bounds pages by tasks and by bytes, reading a task larger than the budget alone', async () => {
    const pages = await pagesOf(SMALL);
    expect(pages.length).toBeGreaterThanOrEqual(7);
    expect(pages.every((p) => p.length >= 1 && p.length <= SMALL.tasks)).toBe(true);
    const withBig = pages.find((p) => p.some((item) => item.task.taskId === bigTask));
    expect(withBig).toHaveLength(1);
    expect(withBig?.[0]?.task.stageHistory).toHaveLength(12);
    expect(JSON.stringify(withBig?.[0]).length).toBeGreaterThan(SMALL.bytes);
  });
});
