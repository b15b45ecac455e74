/*
 * The small picture an uploaded image or video is listed with, made in the browser while the
 * file is at hand (it is decoded here anyway): the longest side at most THUMB_SIDE pixels, WebP
 * (PNG where the browser cannot write WebP). The asset list then loads a few kilobytes per row,
 * never the full images. Documents get none: the list names their kind instead.
 */

export const THUMB_SIDE = 256;
/** A video that does not show a frame by then gets no thumbnail (an unknown codec never does). */
const VIDEO_WAIT_MS = 10_000;

export interface Thumbnail {
  blob: Blob;
  /** The original's size in pixels, kept as the asset's metadata. */
  width: number;
  height: number;
}

function draw(source: CanvasImageSource, width: number, height: number): Promise<Thumbnail> {
  const scale = Math.min(1, THUMB_SIDE / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d');
  if (!context) return Promise.reject(new Error('no canvas to draw on'));
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve({ blob, width, height }) : reject(new Error('the picture could not be encoded'))),
      'image/webp',
      0.8,
    ),
  );
}

async function fromImage(file: File): Promise<Thumbnail> {
  const bitmap = await createImageBitmap(file);
  try {
    return await draw(bitmap, bitmap.width, bitmap.height);
  } finally {
    bitmap.close();
  }
}

function until(target: HTMLVideoElement, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the video showed no frame')), VIDEO_WAIT_MS);
    target.addEventListener(event, () => (clearTimeout(timer), resolve()), { once: true });
    target.addEventListener('error', () => (clearTimeout(timer), reject(new Error('the video cannot be read'))), {
      once: true,
    });
  });
}

async function fromVideo(file: File): Promise<Thumbnail> {
  const url = URL.createObjectURL(file);
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  try {
    const loaded = until(video, 'loadeddata');
    video.src = url;
    await loaded;
    // A frame a little in: the very first is often black.
    const seeked = until(video, 'seeked');
    video.currentTime = Math.min(1, (video.duration || 0) / 10);
    await seeked;
    return await draw(video, video.videoWidth, video.videoHeight);
  } finally {
    video.removeAttribute('src');
    URL.revokeObjectURL(url);
  }
}

/** The thumbnail of an image or video, or undefined (other files, or one the browser cannot read). */
export async function makeThumbnail(file: File): Promise<Thumbnail | undefined> {
  try {
    if (file.type.startsWith('image/')) return await fromImage(file);
    if (file.type.startsWith('video/')) return await fromVideo(file);
  } catch {
    // Not decodable here (a TIFF, an unknown codec): the asset is uploaded without one.
  }
  return undefined;
}

/** The thumbnail's file name next to the original's: `street.jpg` -> `street.jpg.thumb.webp`. */
export function thumbnailName(fileName: string, blob: Blob): string {
  return `${fileName}.thumb.${blob.type === 'image/webp' ? 'webp' : 'png'}`;
}
