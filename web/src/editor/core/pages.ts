import type { EditorAnswer, EditorObject } from './answer';

/*
 * Objects of a paged medium (a document's pages, a scan's images): unlike a video's tracks, an
 * object lives on the one page it was drawn on, its entry's `where.page`. Objects without a page
 * (drawn before the asset was known to have pages) show on every page.
 */

/** The objects shown on a page: those drawn on it, and those of no page. */
export function objectsOfPage(objects: readonly EditorObject[], page: number): EditorObject[] {
  return objects.filter((o) => o.where?.page === undefined || o.where.page === page);
}

/**
 * An answer edited as shown on a page put back into the whole answer: the other pages' objects
 * stay as they were (in their order), the page's are what the edit left.
 */
export function mergePage(full: EditorAnswer, shown: EditorAnswer, next: EditorAnswer): EditorAnswer {
  const onPage = new Set(shown.objects.map((o) => o.objectId));
  return { ...next, objects: [...full.objects.filter((o) => !onPage.has(o.objectId)), ...next.objects] };
}
