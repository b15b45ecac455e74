/**
 * One process start loading a CommonJS file through the code cache, as `annotary serve` loads its
 * bundle: V8 reuses compiled code only across isolates, so each load in the code-cache test is a
 * process of its own. Prints one JSON line: what the cache did, what the file's `answer()`
 * returned, whether the cache was written.
 *
 * Run: node --import tsx test/helpers/code-cache-child.ts <file> <cache folder> [off]
 */
import { loadWithCodeCache } from '../../src/cli/code-cache.js';

const [file, dir, off] = process.argv.slice(2);
if (!file || !dir) throw new Error('usage: code-cache-child.ts <file> <cache folder> [off]');
const loaded = loadWithCodeCache<{ answer(): unknown }>(file, { dir, disabled: off === 'off' });
const answer = loaded.exports.answer();
const saved = loaded.save();
process.stdout.write(
  `${JSON.stringify({ cache: loaded.cache, answer, saved, cacheFile: loaded.cacheFile ?? null })}\n`,
);
