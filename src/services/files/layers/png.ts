import zlib from 'node:zlib';
import { PNG } from 'pngjs';
import type { Raster } from './raster.js';

/*
 * The PNGs of the mask formats. pngjs reads any PNG (brush layers) but writes only grey and
 * RGB(A), while Pascal VOC's class and object maps are palette PNGs (index = class, the colour
 * table inside the file) and instance maps need 16 bits: both encoders are the few chunks the
 * PNG specification asks for, with zlib and its CRC-32 from Node.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body, zlib.crc32(type)), 0);
  return Buffer.concat([head, body, crc]);
}

function header(width: number, height: number, depth: number, colourType: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colourType;
  return chunk('IHDR', ihdr); // compression 0, filter 0, no interlace
}

/** Scanlines each led by filter byte 0 (none), deflated. */
function imageData(rows: number, rowBytes: number, fill: (row: number, line: Buffer) => void): Buffer {
  const raw = Buffer.alloc(rows * (rowBytes + 1));
  for (let y = 0; y < rows; y++) fill(y, raw.subarray(y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1)));
  return chunk('IDAT', zlib.deflateSync(raw, { level: 6 }));
}

/** An 8-bit palette PNG of a raster: each byte an index into `palette` ([r, g, b] per index). */
export function indexedPng(raster: Raster, palette: readonly (readonly [number, number, number])[]): Buffer {
  const { width, height, data } = raster;
  const plte = Buffer.alloc(Math.max(1, palette.length) * 3);
  palette.forEach(([r, g, b], i) => plte.set([r, g, b], i * 3));
  return Buffer.concat([
    SIGNATURE,
    header(width, height, 8, 3),
    chunk('PLTE', plte),
    imageData(height, width, (y, line) => line.set(data.subarray(y * width, (y + 1) * width))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 16-bit greyscale PNG: one value per pixel (instance ids past 255). */
export function grey16Png(width: number, height: number, values: Uint16Array): Buffer {
  return Buffer.concat([
    SIGNATURE,
    header(width, height, 16, 0),
    imageData(height, width * 2, (y, line) => {
      for (let x = 0; x < width; x++) line.writeUInt16BE(values[y * width + x] as number, x * 2);
    }),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A decoded PNG as RGBA bytes (pngjs normalises every colour type and depth to that). */
export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

export function decodePng(bytes: Buffer): Rgba {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

/** `#rrggbb` as [r, g, b]; anything else is black. */
export function rgbOf(color: string | undefined): [number, number, number] {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(color ?? '');
  return m ? [parseInt(m[1] as string, 16), parseInt(m[2] as string, 16), parseInt(m[3] as string, 16)] : [0, 0, 0];
}
