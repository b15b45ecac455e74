import * as UTIF from 'utif2';
import { MediaError } from '../fetch-media';

/** Why a TIFF cannot be shown, in words for the labeler. */
export class TiffError extends MediaError {}

/** Decoded pages kept at once (a decoded 4000 x 3000 page is 48 MB). */
const KEEP = 3;

/**
 * A multi-page TIFF decoded in the browser (UTIF: every compression TIFF files use, JPEG and
 * LZW included): its pages are read from the file's directories at once, their pixels only when
 * a page is shown, a few kept.
 */
export class TiffPages {
  private readonly decoded = new Map<number, ImageData>();

  private constructor(
    private readonly file: ArrayBuffer,
    private readonly pages: UTIF.IFD[],
  ) {}

  static open(file: ArrayBuffer): TiffPages {
    let ifds: UTIF.IFD[];
    try {
      ifds = UTIF.decode(file);
    } catch {
      throw new TiffError('The file is not a TIFF image, or it is damaged.');
    }
    // Directories without a picture (EXIF, thumbnails' sub-directories) are not pages.
    const pages = ifds.filter((ifd) => Array.isArray(ifd.t256) && Array.isArray(ifd.t257));
    if (!pages.length) throw new TiffError('The TIFF file holds no image.');
    return new TiffPages(file, pages);
  }

  get pageTotal(): number {
    return this.pages.length;
  }

  /** The page's pixels (0-based), decoded once while it stays among the last few shown. */
  page(index: number): ImageData {
    const known = this.decoded.get(index);
    if (known) return known;
    const ifd = this.pages[index];
    if (!ifd) throw new TiffError(`The TIFF file has no page ${index + 1}.`);
    let pixels: ImageData;
    try {
      UTIF.decodeImage(this.file, ifd);
      const rgba = UTIF.toRGBA8(ifd);
      pixels = new ImageData(new Uint8ClampedArray(rgba), ifd.width, ifd.height);
    } catch {
      throw new TiffError(
        `Page ${index + 1} of the TIFF file cannot be decoded (a compression the editor does not read, or damage).`,
      );
    } finally {
      // The decoded bytes live in the ImageData now (or nowhere): the directory keeps none.
      (ifd as { data?: Uint8Array }).data = new Uint8Array(0);
    }
    this.decoded.set(index, pixels);
    while (this.decoded.size > KEEP) this.decoded.delete(this.decoded.keys().next().value as number);
    return pixels;
  }
}
