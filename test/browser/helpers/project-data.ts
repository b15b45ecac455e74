import zlib from 'node:zlib';
import type { ConsoleServer } from './console-server.js';

/** A solid-colour PNG of `width` x `height` (RGB), made here so tests need no image files. */
export function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The API through the app with a key (the owner's by default); throws on anything but 2xx. */
export function apiAs(server: ConsoleServer, key = server.ownerKey) {
  return async <T = Record<string, unknown>>(method: string, url: string, body?: unknown): Promise<T> => {
    const res = await server.call(method, url, { key, ...(body !== undefined ? { body } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
    return (res.json() as { data: T }).data;
  };
}

/**
 * An image in the server's own file store, as a read link (same origin as the console, so the
 * test can read the canvas's pixels back).
 */
export async function storedImage(server: ConsoleServer, projectId: string, name: string, png: Buffer) {
  const api = apiAs(server);
  const { uploadUrl } = await api<{ uploadUrl: string }>(
    'GET',
    `/v2/getUploadUrl?project=${projectId}&name=${encodeURIComponent(name)}&type=assets`,
  );
  // The upload link is on the server's own address (its public URL): PUT the bytes as a client does.
  const put = await fetch(uploadUrl, { method: 'PUT', body: png });
  if (!put.ok) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
  const { signedUrl } = await api<{ signedUrl: string }>(
    'GET',
    `/v2/getSignedUrl?project=${projectId}&name=${encodeURIComponent(uploadUrl)}`,
  );
  return signedUrl;
}
