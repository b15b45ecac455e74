import { describe, expect, it } from 'vitest';
import { assetKind, namesAnImage } from './asset-kind';
import { errorCodesOf } from './error-codes';
import { labelWork, labelWorkWords } from './labelled-by';
import { issuePins, type PinnedIssue } from './pins';
import { pinsOnPage } from '../editor/core/surface';
import type { EditorObject } from '../editor/core/answer';

describe('assetKind', () => {
  const image = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] };
  const text = { tools: [{ schemaId: 'who', title: 'Who', tool: 'ner' }] };
  it('reads the file name of the URL, query string and all', () => {
    expect(assetKind('https://cdn.example.com/a/street.JPG?sig=1&x=.mp4', image)).toEqual({ kind: 'image' });
    expect(assetKind('https://cdn.example.com/a/story.txt', image)).toEqual({ kind: 'text' });
    expect(assetKind('https://cdn.example.com/clip.mp4?sig=1', image)).toEqual({ kind: 'video' });
    expect(assetKind('https://cdn.example.com/clip.webm?sig=1', image)).toEqual({ kind: 'video' });
    expect(assetKind('https://cdn.example.com/clip.avi', image)).toEqual({ kind: 'unsupported', what: 'a video' });
    expect(assetKind('/files/scan.nii.gz', image)).toEqual({ kind: 'unsupported', what: 'a medical volume' });
    expect(assetKind('/files/doc.pdf', image)).toEqual({ kind: 'pdf' });
    expect(assetKind('/files/ct.DCM?sig=1', image)).toEqual({ kind: 'volume' });
    expect(assetKind('/files/head.nrrd', image)).toEqual({ kind: 'volume' });
    expect(assetKind('/files/head.seg.nrrd', image)).toEqual({ kind: 'unsupported', what: 'a medical volume' });
    expect(assetKind('/s/1.dcm', image, undefined, ['/s/1.dcm', '/s/2.dcm'])).toEqual({ kind: 'volume' });
    expect(assetKind('/p/1.png', image, undefined, ['/p/1.png', '/p/2.png'])).toEqual({ kind: 'pages' });
  });
  it('falls back on the ontology, and pct projects are point clouds', () => {
    expect(assetKind('https://cdn.example.com/opaque-id', text)).toEqual({ kind: 'text' });
    expect(assetKind('https://cdn.example.com/opaque-id', image)).toEqual({ kind: 'image' });
    expect(assetKind('https://cdn.example.com/a.png', image, 'pct')).toEqual({ kind: 'pointcloud' });
    expect(assetKind('https://cdn.example.com/frames/000.pcd', image, 'pct')).toEqual({ kind: 'pointcloud' });
  });
});

describe('namesAnImage', () => {
  it('is true for an image file name only: the early start loads nothing else', () => {
    expect(namesAnImage('https://cdn.example.com/a/street.PNG?sig=1&x=.mp4')).toBe(true);
    expect(namesAnImage('/files/street-4000.webp')).toBe(true);
    expect(namesAnImage('https://cdn.example.com/clip.mp4?x=.png')).toBe(false);
    expect(namesAnImage('https://cdn.example.com/opaque-id')).toBe(false);
    expect(namesAnImage(null)).toBe(false);
  });
});

describe('errorCodesOf', () => {
  it('flattens every errorSchema shape the server accepts, each code once', () => {
    expect(
      errorCodesOf({
        codes: [
          'E1',
          { code: 'E2', name: 'Missing object' },
          { name: 'Geometry', children: [{ key: 'G1', name: 'Too loose' }, { value: 'G2' }, 'E1'] },
        ],
      }),
    ).toEqual([
      { key: 'E1', label: 'E1' },
      { key: 'E2', label: 'E2 Missing object' },
      { key: 'G1', label: 'Geometry: G1 Too loose' },
      { key: 'G2', label: 'Geometry: G2' },
    ]);
    expect(errorCodesOf({ errorCodes: ['X'] })).toEqual([{ key: 'X', label: 'X' }]);
    expect(errorCodesOf(null)).toEqual([]);
  });
});

describe('labelWork', () => {
  const entry = (
    stageType: string,
    trigger: string,
    completedBy: string | null,
    duration: number,
    isSkipped = false,
  ) => ({
    stageType,
    trigger,
    completedBy,
    duration,
    isSkipped,
  });
  it('adds up the submits out of Label stages per person, leaving reviews, skips and moves out', () => {
    const work = labelWork([
      entry('Label', 'submit', 'ann@example.com', 65_000),
      entry('Review', 'review', 'rex@example.com', 20_000),
      entry('Label', 'skip', 'bob@example.com', 0, true),
      entry('Label', 'forward', null, 0),
      entry('Label', 'submit', 'ann@example.com', 15_000),
    ]);
    expect(work).toEqual([{ by: 'ann@example.com', ms: 80_000, submits: 2 }]);
    expect(labelWorkWords(work)).toBe('ann@example.com in 1 min 20 s (2 submits)');
  });
  it('names each person with their own time, and says when nobody submitted', () => {
    const work = labelWork([
      entry('Label', 'submit', 'ann@example.com', 40_000),
      entry('Label', 'submit', 'bob@example.com', 5_000),
    ]);
    expect(labelWorkWords(work)).toBe('ann@example.com (40 s), bob@example.com (5 s)');
    expect(labelWorkWords(labelWork([]))).toBe('nobody yet');
  });
});

describe('issuePins', () => {
  const box = (objectId: string, x: number, page?: number) => ({
    objectId,
    schemaId: 'car',
    geometry: { kind: 'bounding-box', value: { x, y: 0, width: 20, height: 10 } },
    ...(page === undefined ? {} : { where: { page } }),
    classifications: [],
    extra: {},
  });
  const issue = (over: Partial<PinnedIssue>): PinnedIssue => ({
    _id: `i${Math.random()}`,
    position: null,
    objectId: null,
    page: null,
    status: 'Open',
    ...over,
  });
  it('pins a point where it is and an object in its middle, numbered as the list, green once resolved', () => {
    const pins = issuePins(
      [
        issue({ position: '[5, 6]' }),
        issue({ position: '12' }),
        issue({ objectId: 'a', status: 'Resolved' }),
        issue({ objectId: 'gone' }),
      ],
      [box('a', 100)] as EditorObject[],
    );
    expect(pins.map((p) => [p.label, p.position, p.resolved, p.page])).toEqual([
      ['1', [5, 6], false, undefined],
      ['3', [110, 5], true, undefined],
    ]);
  });
  it("puts a pin on its issue's page: an object's on the keyframe the issue names", () => {
    const keyframes = [box('a', 0, 0), box('a', 50, 4)] as EditorObject[];
    const pins = issuePins([issue({ objectId: 'a', page: 4 }), issue({ position: '[1, 2]', page: 2 })], keyframes);
    expect(pins.map((p) => [p.position, p.page])).toEqual([
      [[60, 5], 4],
      [[1, 2], 2],
    ]);
    expect(pinsOnPage(pins, 2)?.map((p) => p.label)).toEqual(['2']);
  });
});
