import { useEffect, useState } from 'react';
import { BrushLayer } from './layer';

/**
 * The task's brush layer, the image's size, once the image's size is known: empty, or drawn from
 * the stored PNG at `url` (`loaded` is called when its pixels are in, to redraw). None while
 * `wanted` is false (a project without brush classes and no stored layer).
 */
export function useBrushLayer(
  wanted: boolean,
  size: { width: number; height: number } | null,
  url: string | null | undefined,
  loaded: () => void,
): BrushLayer | undefined {
  const [layer, setLayer] = useState<BrushLayer | undefined>(undefined);
  useEffect(() => {
    if (!wanted || !size) return;
    const made = new BrushLayer(size.width, size.height);
    setLayer(made);
    if (!url) return;
    let live = true;
    const stored = new Image();
    stored.crossOrigin = 'anonymous';
    stored.onload = () => {
      if (!live) return;
      made.load(stored);
      loaded();
    };
    stored.src = url;
    return () => {
      live = false;
    };
  }, [wanted, size, url]);
  return layer;
}
