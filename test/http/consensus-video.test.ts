import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { ENGINES } from '../helpers/stores.js';
import { consensusWorkflow, submitConsensusRound } from '../helpers/street-scene.js';

/*
 * Consensus on a video compares tracks, not stored keyframes: each copy's keyframes are expanded
 * to every frame (as exports expand them), tracks are matched one to one, and two tracks score
 * the mean of their boxes' IoU over the frames either shows. The same motion set with other
 * keyframes agrees fully; a track one copy hides halfway, or a track only one copy drew, lowers
 * the score by the frames and tracks the other does not show.
 */

const ONTOLOGY = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' }] };

/** A keyframe of track `id` on `page`: a 10 x 10 box at x. */
const key = (id: string, page: number, x: number, extra: Record<string, unknown> = {}) => ({
  schemaId: 'car',
  objectId: id,
  page,
  'bounding-box': { x, y: 0, width: 10, height: 10 },
  ...extra,
});

describe.each(ENGINES)('consensus of video tracks on %s', (engine) => {
  let t: TestApp;
  let pid: string;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { ANNOTARY_DEFAULT_PLAN: 'enterprise' } });
    pid = (await t.call('POST', '/v2/project', { body: { name: 'Clips' } })).json().data.project._id;
    const res = await t.call('POST', `/v2/project/${pid}`, {
      body: { categorySchema: ONTOLOGY, stages: consensusWorkflow({ threshold: 0.8, adjudicationMethod: 'majority' }) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());

  /** A video of 31 frames (0 to 30), or one whose header was not read yet (no frame count). */
  const importOne = async (name: string, frameTotal: number | undefined = 31): Promise<string> => {
    const asset = { data: `https://cdn.example.com/${name}`, ...(frameTotal ? { metadata: { frameTotal } } : {}) };
    const res = await t.call('POST', `/v2/project/${pid}/cloud`, { body: { assets: [asset] } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.assets[0].taskId;
  };
  const round = async (name: string, first: unknown[], second: unknown[], frameTotal?: number) =>
    submitConsensusRound(t, pid, await importOne(name, frameTotal), first, second);

  it('agrees fully on the same motion set with other keyframes', async () => {
    // x moves from 0 to 30 over frames 0 to 30: keyframes at 0 and 30, or at 0, 15 and 30.
    const task = await round(
      'same.mp4',
      [key('a', 0, 0), key('a', 30, 30)],
      [key('b', 0, 0), key('b', 15, 15), key('b', 30, 30)],
    );
    expect(task).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });

  it('scores a track one copy hides halfway by the frames both show, over the frames either shows', async () => {
    // Shown on frames 0-30 in one copy, 0-14 in the other (hidden from frame 15): 15 of 31 frames.
    const task = await round(
      'hidden.mp4',
      [key('a', 0, 0)],
      [key('b', 0, 0), key('b', 15, 0, { interpolationStopped: true })],
    );
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.483871 });
  });

  it('matches tracks one to one: a track only one copy drew counts 0 over the larger count', async () => {
    const task = await round('extra.mp4', [key('a', 0, 0), key('z', 10, 100)], [key('b', 0, 0)]);
    expect(task).toMatchObject({ stage: 'Disputed', consensusScore: 0.5 });
  });

  it('expands to the last frame a copy names when the video has no frame count yet', async () => {
    // Frames 0-20: one copy's box keeps still, the other's moves 10 px over frames 0-20.
    const task = await round('unread.mp4', [key('a', 0, 0), key('a', 20, 0)], [key('b', 0, 0), key('b', 20, 10)], 0);
    // IoU of 10 x 10 boxes d px apart: (10 - d) / (10 + d), d = f / 2 on frame f; mean over 21 frames.
    let sum = 0;
    for (let f = 0; f <= 20; f++) sum += (10 - f / 2) / (10 + f / 2);
    expect(task.consensusScore).toBeCloseTo(sum / 21, 5);
  });

  it('scores still images as before: objects on a page compared as they are', async () => {
    // A TIFF's pages are no frames: the same objects on the same pages agree, nothing is expanded.
    const task = await round('scan.tif', [key('a', 0, 0), key('a', 2, 30)], [key('b', 0, 0), key('b', 2, 30)], 0);
    expect(task).toMatchObject({ stage: 'Done', consensusScore: 1 });
  });
});
