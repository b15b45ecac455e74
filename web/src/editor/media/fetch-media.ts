/** Why a medium's file cannot be shown, in words for the labeler. */
export class MediaError extends Error {}

/**
 * What is wrong with an address's answer, in words naming the kind of file expected (`noun`:
 * "video", "TIFF image"); undefined when it is a file to read. `null` is no answer at all.
 */
export function refusalOf(noun: string, res: Response | null): MediaError | undefined {
  if (!res) return new MediaError(`The ${noun} could not be downloaded (the address did not answer).`);
  if (!res.ok) return new MediaError(`The ${noun} could not be downloaded (the address answered ${res.status}).`);
  if ((res.headers.get('content-type') ?? '').startsWith('text/html')) {
    return new MediaError(`The address answered a web page, not a ${noun}.`);
  }
  return undefined;
}

/** Downloads a medium's whole file; what goes wrong is said in words (`refusalOf`). */
export async function fetchMedia(url: string, noun: string): Promise<ArrayBuffer> {
  const res = await fetch(url).catch(() => null);
  const refused = refusalOf(noun, res);
  if (refused) throw refused;
  return res!.arrayBuffer();
}
