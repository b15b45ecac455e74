import type { EditorObject, Vec } from '../editor/core/answer';
import { bounds } from '../editor/core/objects';
import type { Pin } from '../editor/core/surface';

/** An issue's `position` ("[x, y]" in image pixels) as a point; null for text or none. */
export function parsePosition(position: string | null): Vec | null {
  if (!position) return null;
  try {
    const v: unknown = JSON.parse(position);
    return Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number' ? [v[0], v[1]] : null;
  } catch {
    return null;
  }
}

/** What of an issue places its pin. */
export interface PinnedIssue {
  _id: string;
  position: string | null;
  objectId: string | null;
  page?: number | null;
  status: string;
}

/**
 * The pins of a task's issues, numbered as their list numbers them: an issue at a point is pinned
 * there, an issue on an object at the middle of the object's box (on the object's page or frame:
 * the one the issue names, else the first the object is on). Issues on a character, on the task
 * or on an object no longer in the answer have no pin.
 */
export function issuePins(issues: readonly PinnedIssue[], objects: readonly EditorObject[]): Pin[] {
  return issues.flatMap((issue, i) => {
    const page = issue.page ?? undefined;
    let at = parsePosition(issue.position);
    let on = page;
    if (!at && issue.objectId) {
      const same = objects.filter((o) => o.objectId === issue.objectId);
      const o = same.find((x) => page === undefined || x.where?.page === undefined || x.where.page === page) ?? same[0];
      if (o?.geometry.kind === 'pdf') {
        // A document's mark keeps its page and its box in the page's points itself.
        const [x1, y1, x2, y2] = o.geometry.value.bounds;
        at = [(x1 + x2) / 2, (y1 + y2) / 2];
        on = o.geometry.value.page;
      } else {
        const b = o && bounds(o.geometry);
        at = b ? [b.x + b.width / 2, b.y + b.height / 2] : null;
        on = o?.where?.page ?? page;
      }
    }
    if (!at) return [];
    const pin: Pin = { id: issue._id, position: at, label: String(i + 1), resolved: issue.status === 'Resolved' };
    return [on === undefined ? pin : { ...pin, page: on }];
  });
}
