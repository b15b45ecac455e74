import type { ClassificationAnswer, EditorAnswer, EditorObject } from './answer';
import type { Ontology } from './ontology';
import { documentTool } from './tools';

/*
 * Objects of a paged medium (a document's pages, a scan's images): unlike a video's tracks, an
 * object lives on the one page it was drawn on, its entry's `where.page`. Objects without a page
 * (drawn before the asset was known to have pages) show on every page. So do answers: a per-page
 * question's (`frameSpecific`) answer holds on its page only, where a video's holds from its
 * frame on; the other questions are answered once for the whole document.
 */

/** The page an object is on: its entry's `page`, or the page a document tool's value names (a PDF mark's). */
function pageOf(o: EditorObject): number | undefined {
  return o.where?.page ?? documentTool(o.geometry.kind)?.placement(o.geometry.value).page;
}

/** The objects shown on a page: those drawn on it, and those of no page. */
export function objectsOfPage(objects: readonly EditorObject[], page: number): EditorObject[] {
  return objects.filter((o) => {
    const on = pageOf(o);
    return on === undefined || on === page;
  });
}

/** The questions answered per frame or page (`frameSpecific`): their schemaIds. */
export function partQuestions(ontology: Ontology): Set<string> {
  return new Set((ontology.classifications ?? []).filter((c) => c.frameSpecific).map((c) => c.schemaId));
}

/** What the questions' panel says of the per-page questions, on a page (0-based); none without any. */
export function pageQuestionsNote(ontology: Ontology, page: number): string | undefined {
  const titles = (ontology.classifications ?? []).filter((c) => c.frameSpecific).map((c) => `“${c.title}”`);
  if (!titles.length) return undefined;
  const which = titles.length === 1 ? `${titles[0]} is` : `${titles.join(', ')} are`;
  return `${which} answered for each page: the answers shown are page ${page + 1}'s.`;
}

/**
 * The task's answers as a page shows them: the whole document's, and each per-page question's
 * answer on this page, without its `page` (an entry without one is page 0's).
 */
export function answersOfPage(
  list: readonly ClassificationAnswer[],
  page: number,
  pageQuestions: ReadonlySet<string>,
): ClassificationAnswer[] {
  if (pageQuestions.size === 0) return [...list];
  return list.flatMap((c) => {
    if (!pageQuestions.has(c.schemaId)) return [c];
    if ((c.page ?? 0) !== page) return [];
    const { page: _page, interpolationStopped: _stopped, ...answer } = c;
    return [answer];
  });
}

/**
 * Answers edited as a page shows them (`answersOfPage`) put back: the other pages' answers to
 * per-page questions stay, this page's are the edit's, each with this `page`.
 */
export function setAnswersOfPage(
  full: readonly ClassificationAnswer[],
  next: readonly ClassificationAnswer[],
  page: number,
  pageQuestions: ReadonlySet<string>,
): ClassificationAnswer[] {
  if (pageQuestions.size === 0) return [...next];
  return [
    ...next.filter((c) => !pageQuestions.has(c.schemaId)),
    ...full.filter((c) => pageQuestions.has(c.schemaId) && (c.page ?? 0) !== page),
    ...next.filter((c) => pageQuestions.has(c.schemaId)).map((c) => ({ ...c, page })),
  ];
}

/**
 * An answer edited as shown on a page put back into the whole answer: the other pages' objects
 * stay as they were (in their order), the page's are what the edit left; so do the answers to
 * per-page questions.
 */
export function mergePage(
  full: EditorAnswer,
  shown: EditorAnswer,
  next: EditorAnswer,
  page = 0,
  pageQuestions: ReadonlySet<string> = new Set(),
): EditorAnswer {
  const onPage = new Set(shown.objects.map((o) => o.objectId));
  return {
    ...next,
    objects: [...full.objects.filter((o) => !onPage.has(o.objectId)), ...next.objects],
    classifications: setAnswersOfPage(full.classifications, next.classifications, page, pageQuestions),
  };
}
