import { useCallback, useEffect, useMemo, useState } from 'react';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import { PAGE_KEYS } from '../../shell/editor-keys';
import { MediaUnreadable } from '../../shell/MediaUnreadable';
import { ImageEditor } from '../image/ImageEditor';
import type { FrameSource } from '../image/ImageCanvas';
import { loadImage } from '../image/useImage';
import { TiffPages } from './tiff-pages';
import { fetchMedia } from '../fetch-media';
import { useOpened } from '../useOpened';
import { PageBar, usePageKeys } from './PageBar';

/**
 * The editor of an asset of pages: the image editor's tools, keys, pan and zoom, undo and drafts
 * on the page shown, a page bar under it. The pages are the asset's `dataset` (images loaded as
 * the editor loads one) or a multi-page TIFF's, decoded here. An object belongs to the page it
 * was drawn on.
 */
export function PagesSurfaceEditor({ asset, onPick, pins, ...props }: SurfaceEditorProps) {
  const images = asset.pages?.length ? asset.pages : undefined;
  // A dataset's pages are images: no TIFF is fetched for them.
  const loading = useOpened(
    images ? undefined : asset.url,
    async (url) => TiffPages.open(await fetchMedia(url, 'TIFF image')),
    { missing: 'The task has no file.', failed: 'The TIFF file could not be opened.' },
  );
  const tiff = !images && loading.status === 'ready' ? loading.value : undefined;
  const total = images ? images.length : (tiff?.pageTotal ?? 1);
  const [page, setPage] = useState(0);
  const [frame, setFrame] = useState<FrameSource>({ canvas: null, width: 0, height: 0, version: 0 });
  const [pageError, setPageError] = useState<string | undefined>(undefined);
  const canvas = useMemo(() => (tiff ? document.createElement('canvas') : null), [tiff]);

  const go = useCallback((to: number) => setPage(Math.max(0, Math.min(total - 1, Math.round(to)))), [total]);

  // A TIFF's page is decoded and drawn when it is shown.
  useEffect(() => {
    if (!tiff || !canvas) return;
    try {
      const pixels = tiff.page(page);
      canvas.width = pixels.width;
      canvas.height = pixels.height;
      canvas.getContext('2d')!.putImageData(pixels, 0, 0);
      setFrame((was) => ({ canvas, width: pixels.width, height: pixels.height, version: was.version + 1 }));
      setPageError(undefined);
    } catch (e) {
      setPageError(e instanceof Error ? e.message : String(e));
    }
  }, [tiff, canvas, page]);

  // The next page's image is fetched while this one is worked.
  useEffect(() => {
    const next = images?.[page + 1];
    if (next) void loadImage(next).catch(() => undefined);
  }, [images, page]);

  usePageKeys(page, total, go);

  if (!images && loading.status === 'error') {
    // The questions, the answer saved so far and the stage's buttons stay.
    return <MediaUnreadable given={props} problem={loading.message} />;
  }

  const pager = () => <PageBar page={page} total={total} known={!!(images || tiff)} onGo={go} error={pageError} />;

  return (
    <ImageEditor
      {...props}
      // A TIFF's pages are drawn from `frame`; its address only tells the canvas when to fit the view.
      imageUrl={images ? images[page] : asset.url}
      onPick={onPick ? (position, objectId) => onPick(objectId ? { objectId, page } : { position, page }) : undefined}
      pins={pinsOnPage(pins, page)}
      paged={{ page, frame: tiff ? frame : undefined, separate: true, keys: PAGE_KEYS, player: pager }}
    />
  );
}
