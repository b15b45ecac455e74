import { describe, expect, it } from 'vitest';
import { AssetMatcher } from '../../src/services/assets/label-import/asset-matcher.js';

const asset = (id: string, externalId: string, data: string) => ({
  id,
  external_id: externalId,
  data,
  metadata: JSON.stringify({ width: 640, height: 480 }),
});

describe('AssetMatcher', () => {
  const matcher = new AssetMatcher([
    asset('a1', 'street-1', 'https://cdn.example.com/street/frame%20001.jpg?sig=abc'),
    asset('a2', 'folder/cars/2.png', 'https://cdn.example.com/x/other.png'),
    asset('a3', 'dup-a', 'https://cdn.example.com/a/same.jpg'),
    asset('a4', 'dup-b', 'https://cdn.example.com/b/same.jpg'),
  ]);
  const id = (fileName: string) => {
    const m = matcher.match({ fileName } as Parameters<AssetMatcher['match']>[0]);
    return typeof m === 'string' ? m : m.id;
  };

  it("finds an asset by its file's name in its address, decoded and without the query", () => {
    expect(id('frame 001.jpg')).toBe('a1');
    expect(id('images/frame 001.jpg')).toBe('a1');
    expect(id('frame 001.txt')).toBe('a1'); // YOLO's label file: the name without extension
  });

  it("finds an asset by its external id's last segment", () => {
    expect(id('2.png')).toBe('a2');
    expect(id('other.png')).toBe('a2');
  });

  it('refuses a name that several assets share, and says when none has it', () => {
    expect(id('same.jpg')).toMatch(/several assets/);
    expect(id('missing.jpg')).toMatch(/no asset of the project is named "missing.jpg"/);
  });
});
