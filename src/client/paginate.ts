import { isRecord } from './errors.js';

/**
 * Walks a page-numbered list (`page`, `limit`; answers `{<items>: [...], total}`), yielding
 * items as pages arrive. It stops at a short or empty page or once `total` items came. Pages
 * are offsets: items added or removed while walking can shift a page boundary, so a listing of
 * a project that changes meanwhile can miss or repeat an item.
 */
export async function* paginate<T>(
  fetchPage: (page: number, limit: number) => Promise<unknown>,
  itemsKey: string,
  limit: number,
  firstPage = 1,
): AsyncGenerator<T, void, undefined> {
  for (let page = firstPage; ; page++) {
    const data = await fetchPage(page, limit);
    const items = isRecord(data) ? data[itemsKey] : undefined;
    if (!Array.isArray(items)) throw new Error(`the list answer has no "${itemsKey}" array`);
    for (const item of items) yield item as T;
    const total = isRecord(data) && typeof data.total === 'number' ? data.total : undefined;
    if (items.length < limit || (total !== undefined && page * limit >= total)) return;
  }
}
