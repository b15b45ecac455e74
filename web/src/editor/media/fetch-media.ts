/** Why a medium's file cannot be shown, in words for the labeler. */
export class MediaError extends Error {}

/**
 * Downloads a medium's whole file; what goes wrong is said in words, naming the kind of file
 * expected (`noun`: "video", "TIFF image").
 */
export async function fetchMedia(url: string, noun: string): Promise<ArrayBuffer> {
  const res = await fetch(url).catch(() => null);
  if (!res) throw new MediaError(`The ${noun} could not be downloaded (the address did not answer).`);
  if (!res.ok) throw new MediaError(`The ${noun} could not be downloaded (the address answered ${res.status}).`);
  if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
    throw new MediaError(`The address answered a web page, not a ${noun}.`);
  }
  return res.arrayBuffer();
}
