import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { EditorObject } from '../core/answer';

export interface ObjectListProps {
  objects: EditorObject[];
  numbering: Map<string, string>;
  colors: Map<string, string>;
  selectedId: string | undefined;
  readOnly: boolean | undefined;
  /** Objects whose questions miss answers. */
  flagged: Set<string>;
  onSelect(objectId: string): void;
  onDelete(objectId: string): void;
}

/** Rows of this height (px, with the gap): the virtual list places them without measuring. */
const ROW_HEIGHT = 34;
/** Up to this many objects every row is in the page; above, only the rows in view (and a few more). */
const PLAIN_UP_TO = 60;

/**
 * The answer's objects, one row each (select, delete). A long list renders only the rows its
 * scroll box shows: 500 objects open as fast as 20, and the selected row is scrolled into view.
 */
export function ObjectList(p: ObjectListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = p.objects.length > PLAIN_UP_TO;
  const virtualizer = useVirtualizer({
    count: virtual ? p.objects.length : 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const selectedIndex = p.selectedId ? p.objects.findIndex((o) => o.objectId === p.selectedId) : -1;
  useEffect(() => {
    if (virtual && selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [virtual, selectedIndex, virtualizer]);

  const row = (o: EditorObject) => {
    const name = p.numbering.get(o.objectId) ?? o.objectId;
    const selected = o.objectId === p.selectedId;
    return (
      <li key={o.objectId} className={selected ? 'selected' : undefined}>
        <button type="button" className="object-name" aria-pressed={selected} onClick={() => p.onSelect(o.objectId)}>
          <span className="swatch" style={{ background: p.colors.get(o.schemaId) }} aria-hidden="true" />
          {name}
          {p.flagged.has(o.objectId) && <span className="badge-warn"> needs answers</span>}
        </button>
        {!p.readOnly && (
          <button type="button" className="icon" aria-label={`Delete ${name}`} onClick={() => p.onDelete(o.objectId)}>
            ×
          </button>
        )}
      </li>
    );
  };

  if (!virtual) return <ul className="object-list">{p.objects.map(row)}</ul>;
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  return (
    <div ref={scroller} className="object-scroll">
      <ul className="object-list" style={{ paddingTop: padTop, paddingBottom: padBottom }}>
        {items.map((item) => {
          const o = p.objects[item.index];
          return o ? row(o) : null;
        })}
      </ul>
    </div>
  );
}
