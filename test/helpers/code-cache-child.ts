/**
 * One process start loading a CommonJS file through the code cache, as `annotary serve` loads its
 * bundle on Node 20: V8 reuses compiled code only across isolates, so each load in the code-cache
 * test is a process of its own. Prints one JSON line: what the cache did, what the file's
 * `answer()` returned, whether the cache was written and where.
 *
 * Run: node --import tsx test/helpers/code-cache-child.ts <file> <cache folder>[<path.delimiter><fallback folder>...]
 */
import path from 'node:path';
import { loadWithCodeCache } from '../../src/cli/code-cache.js';

const [file, dirs] = process.argv.slice(2);
if (!file || !dirs) throw new Error('usage: code-cache-child.ts <file> <cache folders>');
const loaded = loadWithCodeCache<{ answer(): unknown }>(file, dirs.split(path.delimiter));
const answer = loaded.exports.answer();
const saved = loaded.save();
process.stdout.write(
  `${JSON.stringify({ cache: loaded.cache, answer, saved, cacheFile: loaded.cacheFile ?? null })}\n`,
);
