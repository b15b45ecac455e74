import { useEffect, useState } from 'react';

export type ImageState =
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; image: HTMLImageElement; width: number; height: number };

/** Loads an image element for the canvas; its natural size is the answer's pixel space. */
export function useImage(url: string | undefined): ImageState {
  const [state, setState] = useState<ImageState>({ status: 'loading' });
  useEffect(() => {
    if (!url) return setState({ status: 'error' });
    setState({ status: 'loading' });
    const image = new window.Image();
    let live = true;
    image.src = url;
    // decode() answers once the pixels are decoded, so the first frame does not stall on a big image.
    image
      .decode()
      .then(() => live && setState({ status: 'ready', image, width: image.naturalWidth, height: image.naturalHeight }))
      .catch(() => live && setState({ status: 'error' }));
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}
