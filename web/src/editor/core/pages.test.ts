import { describe, expect, it } from 'vitest';
import type { EditorAnswer, EditorObject } from './answer';
import { mergePage, objectsOfPage } from './pages';

const box = (objectId: string, page?: number): EditorObject => ({
  objectId,
  schemaId: 'word',
  geometry: { kind: 'bounding-box', value: { x: 1, y: 2, width: 3, height: 4 } },
  classifications: [],
  extra: {},
  ...(page === undefined ? {} : { where: { page } }),
});

describe('objects of a paged medium', () => {
  const answer: EditorAnswer = {
    objects: [box('a', 0), box('b', 1), box('c', 2), box('loose')],
    classifications: [],
    relations: [],
  };

  it('shows a page its own objects and those of no page, never another page', () => {
    expect(objectsOfPage(answer.objects, 1).map((o) => o.objectId)).toEqual(['b', 'loose']);
    expect(objectsOfPage(answer.objects, 5).map((o) => o.objectId)).toEqual(['loose']);
  });

  it('puts an edit of one page back without touching the others', () => {
    const shown = { ...answer, objects: objectsOfPage(answer.objects, 1) };
    const edited = { ...shown, objects: [box('loose'), box('d', 1)] };
    const merged = mergePage(answer, shown, edited);
    expect(merged.objects.map((o) => [o.objectId, o.where?.page])).toEqual([
      ['a', 0],
      ['c', 2],
      ['loose', undefined],
      ['d', 1],
    ]);
  });
});
