import type { AddressInfo } from 'node:net';
import yauzl from 'yauzl';
import type { App } from '../../src/http/app.js';

/** A clock the test moves by hand: exports and link expiries become deterministic. */
export function manualClock(startIso: string) {
  let now = Date.parse(startIso);
  return {
    now: () => now,
    set(iso: string) {
      now = Date.parse(iso);
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

/** Starts the app on a real socket (once) and answers its base URL. */
export async function listening(app: App): Promise<string> {
  const addr = app.server.address() as AddressInfo | null;
  if (addr) return `http://127.0.0.1:${addr.port}`;
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The same path and query on the listening server: the app hands out links under its public URL. */
export function onServer(link: string, base: string): string {
  const url = new URL(link);
  return `${base}${url.pathname}${url.search}`;
}

export interface ZipEntry {
  name: string;
  text: string;
}

/** Every entry of a zip, read with yauzl (a real unzip library, independent of the writer). */
export function unzip(buffer: Buffer): Promise<ZipEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const entries: ZipEntry[] = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.push({ name: entry.fileName, text: Buffer.concat(chunks).toString('utf8') });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** Downloads a link with no API key over the socket; answers the status, headers and body. */
export async function download(link: string, base: string) {
  const res = await fetch(onServer(link, base));
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), body };
}
