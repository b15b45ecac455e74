import fs from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { ImportFileError } from './imported-labels.js';

/*
 * The uploaded label file: one JSON or XML file, or a zip of a dataset folder (YOLO, VOC,
 * COCO with its annotations folder). Zips are read entry by entry, each checked before a byte
 * is inflated: no path that climbs out or starts at the root (yauzl refuses them), at most
 * MAX_ENTRIES entries, each at most MAX_ENTRY_BYTES inflated and at most MAX_RATIO times its
 * compressed size, MAX_TOTAL_BYTES in all (zip bombs are refused, not expanded); yauzl checks
 * that inflated sizes are what the headers declared.
 */

const MAX_ENTRIES = 500_000;
const MAX_ENTRY_BYTES = 512 * 1024 * 1024;
const MAX_TOTAL_BYTES = 2 * 1024 ** 3;
const MAX_RATIO = 200;

export interface ImportFiles {
  /** Entry names (a single file is one entry named `file`). */
  names: string[];
  read(name: string): Promise<Buffer>;
  /** The entry's bytes as a stream, for files read as they are parsed (large JSON and XML). */
  stream(name: string): Promise<Readable>;
  close(): void;
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

async function isZip(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.equals(ZIP_MAGIC);
  } finally {
    await handle.close();
  }
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false, strictFileNames: true }, (err, zip) =>
      err || !zip ? reject(new ImportFileError(`the zip cannot be read: ${err?.message ?? 'no zip'}`)) : resolve(zip),
    ),
  );
}

async function listEntries(zip: yauzl.ZipFile): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  let total = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (err: Error) => reject(new ImportFileError(`the zip is refused: ${err.message}`)));
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName;
      if (entries.size >= MAX_ENTRIES)
        return reject(new ImportFileError(`the zip holds more than ${MAX_ENTRIES} files`));
      if (entry.uncompressedSize > MAX_ENTRY_BYTES) {
        return reject(new ImportFileError(`"${name}" in the zip is larger than ${MAX_ENTRY_BYTES} bytes`));
      }
      if (entry.uncompressedSize > MAX_RATIO * Math.max(entry.compressedSize, 1024)) {
        return reject(
          new ImportFileError(`"${name}" in the zip expands more than ${MAX_RATIO} times: refused as a zip bomb`),
        );
      }
      total += entry.uncompressedSize;
      if (total > MAX_TOTAL_BYTES) return reject(new ImportFileError(`the zip expands past ${MAX_TOTAL_BYTES} bytes`));
      if (!name.endsWith('/')) entries.set(name, entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
  return entries;
}

function streamEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(new ImportFileError(`"${entry.fileName}" cannot be read from the zip`));
      resolve(stream);
    });
  });
}

async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  const parts: Buffer[] = [];
  try {
    for await (const part of await streamEntry(zip, entry)) parts.push(part as Buffer);
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`"${entry.fileName}" in the zip is damaged`);
  }
  return Buffer.concat(parts);
}

export async function openImportFiles(file: string): Promise<ImportFiles> {
  if (!(await isZip(file))) {
    return {
      names: ['file'],
      read: () => fs.promises.readFile(file),
      stream: () => Promise.resolve(fs.createReadStream(file)),
      close: () => undefined,
    };
  }
  const zip = await openZip(file);
  try {
    const entries = await listEntries(zip);
    return {
      names: [...entries.keys()],
      read: (name) => readEntry(zip, entries.get(name) as yauzl.Entry),
      stream: (name) => streamEntry(zip, entries.get(name) as yauzl.Entry),
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    throw err;
  }
}

/** The text of an entry, refusing what is not UTF-8 text. */
export async function readText(files: ImportFiles, name: string): Promise<string> {
  const bytes = await files.read(name);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.includes('\u0000')) throw new ImportFileError(`"${name}" is not a text file`);
  return text;
}
