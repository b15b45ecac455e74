import { useCallback, useEffect, useState } from 'react';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import { PAGE_KEYS } from '../../shell/editor-keys';
import type { FrameSource } from '../image/ImageCanvas';
import { ImageEditor } from '../image/ImageEditor';
import { PageBar, usePageKeys } from '../pages/PageBar';
import type { OpenedPdf } from './usePdf';

/** Canvas pixels a PDF point a page is drawn with: sharp at 200 % zoom on a screen of 2 pixels a CSS pixel. */
const PICTURE_SCALE = 2;

export interface PdfDrawViewProps {
  given: SurfaceEditorProps;
  opened: OpenedPdf;
  /** The page shown, 0-based. */
  page: number;
  onPage(page: number): void;
  /** Back to the document's text (its words and areas). */
  onText(): void;
}

/**
 * One page of a PDF in the image editor: its boxes, polygons, points and lines, drawn in the
 * page's PDF points (y down from its top, as the `pdf` tool's marks are) and kept on the page
 * they were drawn on (`page`, counted from 0). The page is drawn by pdf.js into a canvas twice
 * as fine as its points, so zooming in stays sharp.
 */
export function PdfDrawView({ given, opened, page, onPage, onText }: PdfDrawViewProps) {
  const { asset, onPick, pins, ...props } = given;
  const total = opened.pdf.numPages;
  const [frame, setFrame] = useState<FrameSource>({ canvas: null, width: 0, height: 0, version: 0 });
  const [pageError, setPageError] = useState<string | undefined>();
  const go = useCallback((to: number) => onPage(Math.max(0, Math.min(total - 1, Math.round(to)))), [onPage, total]);
  usePageKeys(page, total, go);

  useEffect(() => {
    let live = true;
    const ratio = Math.min(2, window.devicePixelRatio || 1);
    void opened.pdf
      .getPage(page + 1)
      .then(async (p) => {
        const v = p.getViewport({ scale: 1 });
        const canvas = document.createElement('canvas');
        await opened.loader.drawPicture(p, PICTURE_SCALE * ratio, canvas);
        if (!live) return;
        setFrame((was) => ({ canvas, width: v.width, height: v.height, version: was.version + 1 }));
        setPageError(undefined);
      })
      .catch((err: unknown) => {
        if (live) setPageError(`Page ${page + 1} could not be drawn: ${opened.loader.pdfProblem(err)}.`);
      });
    return () => {
      live = false;
    };
  }, [opened, page]);

  const player = () => (
    <PageBar page={page} total={total} known onGo={go} error={pageError}>
      <button type="button" onClick={onText}>
        Select text
      </button>
    </PageBar>
  );

  return (
    <ImageEditor
      {...props}
      // The page is drawn from `frame`; the address (with the page's size) only tells the canvas
      // when to fit the view again: on the first page, and on a page of another size.
      imageUrl={`${asset.url ?? ''}#${frame.width}x${frame.height}`}
      onPick={onPick ? (position, objectId) => onPick(objectId ? { objectId, page } : { position, page }) : undefined}
      pins={pinsOnPage(pins, page)}
      paged={{ page, frame, separate: true, keys: PAGE_KEYS, player }}
    />
  );
}
