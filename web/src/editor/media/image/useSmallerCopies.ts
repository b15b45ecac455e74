import { useEffect, useState } from 'react';

type Copy = { canvas: HTMLCanvasElement; factor: number };

/**
 * Copies of a big image at most 2048 and 1024 pixels wide or high (none for a small image),
 * made after the first frame (the full image is drawn until they are there). Each copy halves
 * the one before at most, so the browser's plain bilinear scaling stays sharp and cheap (a
 * 'high' quality resize of a 4000 x 3000 image took 800 ms of the main thread).
 */
export function useSmallerCopies(image: HTMLImageElement | undefined): Copy[] {
  const [copies, setCopies] = useState<Copy[]>([]);
  useEffect(() => {
    setCopies([]);
    if (!image) return;
    const timer = window.setTimeout(() => {
      const side = Math.max(image.naturalWidth, image.naturalHeight);
      const made: Copy[] = [];
      let source: CanvasImageSource = image;
      for (const max of [2048, 1024]) {
        const factor = max / side;
        if (factor >= 1) continue;
        const canvas = document.createElement('canvas');
        canvas.width = Math.max(1, Math.round(image.naturalWidth * factor));
        canvas.height = Math.max(1, Math.round(image.naturalHeight * factor));
        canvas.getContext('2d')?.drawImage(source, 0, 0, canvas.width, canvas.height);
        made.push({ canvas, factor });
        source = canvas;
      }
      // Smallest first: the view picks the first copy at least as sharp as the screen.
      setCopies(made.reverse());
    }, 50);
    return () => window.clearTimeout(timer);
  }, [image]);
  return copies;
}
