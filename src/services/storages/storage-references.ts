import type { FieldError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Executor } from '../../store/db.js';
import { chunked } from '../../store/chunks.js';
import { liveStorageIds } from '../../store/repositories/storage.repository.js';

/** A storage id given on write, and the field it was given in. */
export interface StorageReference {
  field: string;
  id: string;
}

export const NO_SUCH_STORAGE = 'no such storage in your organization';

/**
 * One error per reference that is not a live storage of the organization. Another
 * organization's storage, a deleted one and an id that never existed answer alike, so ids
 * elsewhere cannot be probed; and nothing is stored that would later point at someone else's.
 */
export async function unknownStorageErrors(
  db: Executor,
  orgId: string,
  refs: StorageReference[],
): Promise<FieldError[]> {
  // Not an id (or one PostgreSQL cannot compare, with a NUL in it): no storage, no query.
  const ids = [...new Set(refs.map((r) => r.id).filter(isId))];
  const live = new Set<string>();
  for (const part of chunked(ids)) for (const id of await liveStorageIds(db, orgId, part)) live.add(id);
  return refs.filter((r) => !live.has(r.id)).map((r) => ({ field: r.field, message: NO_SUCH_STORAGE }));
}
