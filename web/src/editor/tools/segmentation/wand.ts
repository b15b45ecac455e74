import type { Vec } from '../../core/answer';

/** The image's pixels, read once per image (the image's server must allow reading them: CORS). */
const pixels = new Map<string, Promise<ImageData>>();

export function imagePixels(url: string): Promise<ImageData> {
  const known = pixels.get(url);
  if (known) return known;
  const image = new Image();
  image.crossOrigin = 'anonymous';
  image.src = url;
  const read = image.decode().then(() => {
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    if (!ctx) throw new Error('no 2d context');
    ctx.drawImage(image, 0, 0);
    return ctx.getImageData(0, 0, canvas.width, canvas.height);
  });
  read.catch(() => pixels.delete(url));
  pixels.clear();
  pixels.set(url, read);
  return read;
}

/**
 * The magic wand: the pixels reached from `seed` through their four neighbours whose colour is
 * within `tolerance` (0-255, on each of red, green and blue) of the seed's. 1 in, 0 out.
 */
export function wandMask(img: ImageData, seed: Vec, tolerance: number): Uint8Array {
  const { width: w, height: h, data } = img;
  const mask = new Uint8Array(w * h);
  const sx = Math.min(w - 1, Math.max(0, Math.floor(seed[0])));
  const sy = Math.min(h - 1, Math.max(0, Math.floor(seed[1])));
  const s = (sy * w + sx) * 4;
  const [r, g, b] = [data[s]!, data[s + 1]!, data[s + 2]!];
  const near = (i: number) =>
    Math.abs(data[i * 4]! - r) <= tolerance &&
    Math.abs(data[i * 4 + 1]! - g) <= tolerance &&
    Math.abs(data[i * 4 + 2]! - b) <= tolerance;
  const stack = [sy * w + sx];
  mask[sy * w + sx] = 1;
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % w;
    const next = [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w];
    for (const n of next) {
      if (n < 0 || n >= w * h || mask[n] || !near(n)) continue;
      mask[n] = 1;
      stack.push(n);
    }
  }
  return mask;
}
