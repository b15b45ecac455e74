import http from 'node:http';
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * A street-like test picture as a PNG (RGB): sky, a road, a grid every 100 pixels so a person
 * looking at a screenshot can read positions, and a dark "car" block at (100, 80)-(300, 200).
 */
export function streetPng(width: number, height: number): Buffer {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const o = y * row + 1 + x * 3;
      let [r, g, b] = y < height * 0.55 ? [150, 190, 230] : [95, 100, 105];
      if (x % 100 === 0 || y % 100 === 0) [r, g, b] = [235, 235, 235];
      if (x >= 100 && x < 300 && y >= 80 && y < 200) [r, g, b] = [170, 40, 40];
      raw[o] = r;
      raw[o + 1] = g;
      raw[o + 2] = b;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 1 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface AssetServer {
  url: string;
  close(): Promise<void>;
}

export interface AssetFile {
  type: string;
  body: Buffer | string;
}

/**
 * Serves files on 127.0.0.1 (any origin may read them, as a storage with CORS does): fixed ones,
 * or those a lookup answers by path when they are too many to hold at once (read from a disk).
 */
export async function serveAssets(
  files: Record<string, AssetFile> | ((path: string) => Promise<AssetFile | undefined>),
): Promise<AssetServer> {
  const lookup = typeof files === 'function' ? files : async (path: string) => files[path];
  const server = http.createServer((req, res) => {
    void lookup((req.url ?? '').split('?')[0] ?? '').then(
      (file) => {
        if (!file) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, {
          'content-type': file.type,
          'access-control-allow-origin': '*',
          'cache-control': 'max-age=3600',
        });
        res.end(file.body);
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
