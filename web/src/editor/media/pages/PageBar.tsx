import { type ReactNode, useEffect } from 'react';
import { UnreadableNotice } from '../../shell/MediaUnreadable';
import { PartInput } from '../../shell/PartInput';
import { typingInField } from '../../shell/useEditorKeys';

/**
 * PageDown, PageUp, Home and End turn the pages of an editor that shows one page at a time
 * (`go` keeps the page within the document), unless a field is being typed in.
 */
export function usePageKeys(page: number, total: number, go: (page: number) => void): void {
  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      let handled = true;
      if (e.key === 'PageDown') go(page + 1);
      else if (e.key === 'PageUp') go(page - 1);
      else if (e.key === 'Home') go(0);
      else if (e.key === 'End') go(total - 1);
      else handled = false;
      if (handled) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('keydown', handler, true);
    return () => window.removeEventListener('keydown', handler, true);
  });
}

export interface PageBarProps {
  /** 0-based. */
  page: number;
  total: number;
  /** Whether `total` is known yet (a file still opening says "of …"). */
  known: boolean;
  onGo(page: number): void;
  /** Why the page shown cannot be drawn, in words. */
  error?: string | undefined;
  /** More controls at the bar's end. */
  children?: ReactNode;
}

/** The bar under a page shown one at a time: previous, the page's number to type, next. */
export function PageBar({ page, total, known, onGo, error, children }: PageBarProps) {
  return (
    <div className="video-player page-bar" role="group" aria-label="Pages">
      {error && <UnreadableNotice problem={error} />}
      <div className="video-controls">
        <button type="button" onClick={() => onGo(page - 1)} aria-keyshortcuts="PageUp" disabled={page === 0}>
          Previous page
        </button>
        <PartInput label="Page" page={page} total={total} onGo={onGo} />
        <span>of {known ? total : '…'}</span>
        <button type="button" onClick={() => onGo(page + 1)} aria-keyshortcuts="PageDown" disabled={page >= total - 1}>
          Next page
        </button>
        <output aria-label="Page shown" data-page={page}>
          page {page + 1}
        </output>
        {children}
      </div>
    </div>
  );
}
