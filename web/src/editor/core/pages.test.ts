import { describe, expect, it } from 'vitest';
import type { ClassificationAnswer, EditorAnswer, EditorObject } from './answer';
import { answersOfPage, mergePage, objectsOfPage, setAnswersOfPage } from './pages';

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

  it("keeps a PDF mark on the page its value names (it carries no entry's page)", () => {
    const mark: EditorObject = {
      objectId: 'm',
      schemaId: 'clause',
      geometry: { kind: 'pdf', value: { page: 2, pageSize: [612, 792], bounds: [1, 2, 3, 4], rects: [] } },
      classifications: [],
      extra: {},
    };
    expect(objectsOfPage([mark, box('a', 0)], 2).map((o) => o.objectId)).toEqual(['m']);
    expect(objectsOfPage([mark, box('a', 0)], 0).map((o) => o.objectId)).toEqual(['a']);
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

describe('answers of a paged medium', () => {
  const perPage = new Set(['signed']);
  const answers: ClassificationAnswer[] = [
    { schemaId: 'kind', answer: 'lease' },
    { schemaId: 'signed', answer: 'yes', page: 2 },
    { schemaId: 'signed', answer: 'no' },
  ];

  it("shows a page the document's answers and its own per-page ones, without their page", () => {
    expect(answersOfPage(answers, 2, perPage)).toEqual([
      { schemaId: 'kind', answer: 'lease' },
      { schemaId: 'signed', answer: 'yes' },
    ]);
    // An entry without a page is page 0's; a page never answered shows none.
    expect(answersOfPage(answers, 0, perPage)).toEqual([
      { schemaId: 'kind', answer: 'lease' },
      { schemaId: 'signed', answer: 'no' },
    ]);
    expect(answersOfPage(answers, 1, perPage)).toEqual([{ schemaId: 'kind', answer: 'lease' }]);
    expect(answersOfPage(answers, 1, new Set())).toEqual(answers);
  });

  it("puts a page's answers back with its page, the other pages' kept", () => {
    const edited = [
      { schemaId: 'kind', answer: 'deed' },
      { schemaId: 'signed', answer: 'yes' },
    ];
    expect(setAnswersOfPage(answers, edited, 1, perPage)).toEqual([
      { schemaId: 'kind', answer: 'deed' },
      { schemaId: 'signed', answer: 'yes', page: 2 },
      { schemaId: 'signed', answer: 'no' },
      { schemaId: 'signed', answer: 'yes', page: 1 },
    ]);
    // Cleared on page 2: only page 2's answer goes.
    expect(setAnswersOfPage(answers, [{ schemaId: 'kind', answer: 'lease' }], 2, perPage)).toEqual([
      { schemaId: 'kind', answer: 'lease' },
      { schemaId: 'signed', answer: 'no' },
    ]);
    const full: EditorAnswer = { objects: [], classifications: answers, relations: [] };
    const shown = { ...full, classifications: answersOfPage(answers, 2, perPage) };
    expect(mergePage(full, shown, shown, 2, perPage).classifications).toEqual([
      { schemaId: 'kind', answer: 'lease' },
      { schemaId: 'signed', answer: 'no' },
      { schemaId: 'signed', answer: 'yes', page: 2 },
    ]);
  });
});
