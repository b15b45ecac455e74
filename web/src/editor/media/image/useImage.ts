import { useEffect, useState } from 'react';

export type ImageState =
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; image: HTMLImageElement; width: number; height: number };

type Loaded = Extract<ImageState, { status: 'ready' }>;

/** The images being loaded or loaded, newest last; a few only (a decoded 4000 x 3000 image is 48 MB). */
const loads = new Map<string, Promise<Loaded>>();
/** The images of `loads` already decoded: the editor's first render draws them at once. */
const decoded = new Map<string, Loaded>();
const KEEP = 2;

/**
 * Starts loading and decoding an image (once per url), answering it decoded. Called while the
 * editor renders, so the download and the decode run during the render of its objects, not after.
 */
export function loadImage(url: string): Promise<Loaded> {
  const known = loads.get(url);
  if (known) return known;
  const image = new window.Image();
  image.src = url;
  // decode() answers once the pixels are decoded, so the first frame does not stall on a big image.
  const loaded = image
    .decode()
    .then((): Loaded => ({ status: 'ready', image, width: image.naturalWidth, height: image.naturalHeight }));
  // A failed load is not kept: a retry (a new render) tries again.
  loaded.then(
    (ready) => loads.get(url) === loaded && decoded.set(url, ready),
    () => loads.delete(url),
  );
  loads.set(url, loaded);
  while (loads.size > KEEP) {
    const oldest = loads.keys().next().value as string;
    loads.delete(oldest);
    decoded.delete(oldest);
  }
  return loaded;
}

/** Loads an image element for the canvas; its natural size is the answer's pixel space. */
export function useImage(url: string | undefined): ImageState {
  // Started during the render, before the 500 shapes below are rendered and committed.
  if (url) void loadImage(url).catch(() => undefined);
  // Decoded already (the first script started it, see work/prefetch.ts): no frame without it.
  const [state, setState] = useState<ImageState>(() => (url && decoded.get(url)) || { status: 'loading' });
  useEffect(() => {
    if (!url) return setState({ status: 'error' });
    const known = decoded.get(url);
    if (known) return setState(known);
    setState({ status: 'loading' });
    let live = true;
    loadImage(url)
      .then((ready) => live && setState(ready))
      .catch(() => live && setState({ status: 'error' }));
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}
