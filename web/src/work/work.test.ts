import { describe, expect, it } from 'vitest';
import { assetKind, namesAnImage } from './asset-kind';
import { errorCodesOf } from './error-codes';

describe('assetKind', () => {
  const image = { tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box' }] };
  const text = { tools: [{ schemaId: 'who', title: 'Who', tool: 'ner' }] };
  it('reads the file name of the URL, query string and all', () => {
    expect(assetKind('https://cdn.example.com/a/street.JPG?sig=1&x=.mp4', image)).toEqual({ kind: 'image' });
    expect(assetKind('https://cdn.example.com/a/story.txt', image)).toEqual({ kind: 'text' });
    expect(assetKind('https://cdn.example.com/clip.mp4?sig=1', image)).toEqual({ kind: 'video' });
    expect(assetKind('https://cdn.example.com/clip.webm?sig=1', image)).toEqual({
      kind: 'unsupported',
      what: 'a video',
    });
    expect(assetKind('/files/scan.nii.gz', image)).toEqual({ kind: 'unsupported', what: 'a medical volume' });
    expect(assetKind('/files/doc.pdf', image)).toEqual({ kind: 'pdf' });
  });
  it('falls back on the ontology, and pct projects are point clouds', () => {
    expect(assetKind('https://cdn.example.com/opaque-id', text)).toEqual({ kind: 'text' });
    expect(assetKind('https://cdn.example.com/opaque-id', image)).toEqual({ kind: 'image' });
    expect(assetKind('https://cdn.example.com/a.png', image, 'pct')).toEqual({
      kind: 'unsupported',
      what: 'a point cloud',
    });
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
