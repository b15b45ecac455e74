import type { Readable } from 'node:stream';
import chain from 'stream-chain';
import { parser } from 'stream-json';
import { ignore } from 'stream-json/filters/ignore.js';
import { pick } from 'stream-json/filters/pick.js';
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { streamObject } from 'stream-json/streamers/stream-object.js';
import { ImportFileError } from './imported-labels.js';
import type { ImportFiles } from './import-files.js';

/*
 * Large JSON label files (COCO, Label Studio) read as they are parsed (stream-json), so a file
 * of millions of annotations is never held whole: only the item being converted is. A parse
 * error anywhere refuses the whole file (the service writes nothing before the end).
 */

async function* parsed(input: Readable, name: string, stages: unknown[]): AsyncGenerator<unknown> {
  try {
    // Packed values only: the streamed pieces of each string and number would triple the work.
    for await (const item of chain([input, parser({ streamValues: false }), ...stages])) yield item;
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    const why = err instanceof Error ? err.message.replace(/\s*\[\]$/, '') : 'unreadable';
    throw new ImportFileError(`"${name}" is not valid JSON (${why})`);
  } finally {
    input.destroy();
  }
}

/** Each element of a top-level array, or of the array under the top-level key `key`. */
export async function* jsonArrayItems(files: ImportFiles, name: string, key?: string): AsyncGenerator<unknown> {
  const stages = key ? [pick({ filter: key }), streamArray()] : [streamArray()];
  for await (const item of parsed(await files.stream(name), name, stages)) yield (item as { value: unknown }).value;
}

/** The top-level keys of a JSON object with their whole values, except `skip` (read in another pass). */
export async function* jsonTopLevel(
  files: ImportFiles,
  name: string,
  skip: string,
): AsyncGenerator<{ key: string; value: unknown }> {
  const stages = [ignore({ filter: skip }), streamObject()];
  for await (const item of parsed(await files.stream(name), name, stages))
    yield item as { key: string; value: unknown };
}
