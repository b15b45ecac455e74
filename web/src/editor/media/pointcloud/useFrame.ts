import { useCallback, useEffect, useMemo, useState } from 'react';
import type { PointCloud } from '../../../../../src/shared/pointcloud/cloud';
import type { SurfaceEditorProps } from '../../core/surface';
import { readCameras } from './CameraView';
import { FrameStore, type FrameState } from './frames';

/** The frame `page` of a sequence once read (undefined while it loads); the next two are read ahead. */
export function useFrame(store: FrameStore, page: number): FrameState | undefined {
  const [state, setState] = useState<{ page: number; frame: FrameState } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void store.get(page).then((frame) => {
      if (live) setState({ page, frame });
      store.readAhead(page, 2);
    });
    return () => {
      live = false;
    };
  }, [store, page]);
  return state?.page === page ? state.frame : undefined;
}

/**
 * A point-cloud asset's frames and cameras, and the frame shown: `page` (0-based) moved by `go`,
 * its points once read (`cloud`) or why they cannot be shown (`frameError`).
 */
export function useSequence(asset: SurfaceEditorProps['asset']) {
  const urls = useMemo(() => asset.pages ?? (asset.url ? [asset.url] : []), [asset]);
  const store = useMemo(() => new FrameStore(urls), [urls]);
  const cameras = useMemo(() => readCameras(asset.pct), [asset.pct]);
  const total = Math.max(1, urls.length);
  const [page, setPage] = useState(0);
  const frame = useFrame(store, page);
  const cloud: PointCloud | undefined = frame && 'cloud' in frame ? frame.cloud : undefined;
  const frameError = frame && 'error' in frame ? frame.error : undefined;
  const go = useCallback((to: number) => setPage(Math.max(0, Math.min(total - 1, Math.round(to)))), [total]);
  return { frames: urls.length, store, cameras, total, page, go, cloud, frameError };
}
