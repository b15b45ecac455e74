import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/annotary-child.js';

const exec = promisify(execFile);
const CHILD = path.join(REPO_ROOT, 'test/helpers/code-cache-child.ts');

interface Load {
  cache: string;
  answer: unknown;
  saved: boolean;
  cacheFile: string | null;
}

/** A start: a new process, so V8 compiles (or reads the cache) as a server's start would. */
async function load(file: string, ...dirs: string[]): Promise<Load> {
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', CHILD, file, dirs.join(path.delimiter)], {
    cwd: REPO_ROOT,
  });
  return JSON.parse(stdout.trim()) as Load;
}

/**
 * A CommonJS module with what the server's bundle uses: `require` of a built-in and of a file
 * beside it (resolved from its own folder), `__dirname`, `module.exports`. `padding` makes
 * another text of another length.
 */
function bundle(version: string, padding = ''): string {
  return [
    "const path = require('node:path');",
    "const helper = require('./helper.cjs');",
    `function answer() { return { version: '${version}', folder: path.basename(__dirname), helper: helper.name }; }`,
    `module.exports = { answer };${padding}`,
    '',
  ].join('\n');
}

const cacheFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.v8cache'));
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe.skipIf(process.platform === 'win32')('the code cache the server bundle is loaded through on Node 20', () => {
  let root: string;
  let file: string;
  let dir: string;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-code-cache-'));
    fs.mkdirSync(path.join(root, 'app'));
    file = path.join(root, 'app', 'server.cjs');
    fs.writeFileSync(path.join(root, 'app', 'helper.cjs'), "module.exports = { name: 'helper' };\n");
    fs.writeFileSync(file, bundle('1'));
    dir = path.join(root, 'cache');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is written by a first start and used by the next, which runs the same code', async () => {
    const first = await load(file, dir);
    expect(first).toMatchObject({ cache: 'absent', saved: true });
    expect(first.answer).toEqual({ version: '1', folder: 'app', helper: 'helper' });
    // Owner only: the folder and the file it holds (code read from it runs as the server).
    expect(mode(dir)).toBe(0o700);
    expect(mode(first.cacheFile!)).toBe(0o600);
    expect(path.basename(first.cacheFile!)).toMatch(/^server\.cjs\.[0-9a-f]{20}-v\d+\.\d+\.\d+-\w+\.v8cache$/);

    const second = await load(file, dir);
    expect(second).toMatchObject({ cache: 'used', saved: false, cacheFile: first.cacheFile });
    expect(second.answer).toEqual(first.answer);
  });

  it('never gives a rebuilt bundle of the same length the code of the old one', async () => {
    const old = await load(file, dir);
    expect(old.cache).toBe('absent');
    // V8 checks only the length of the text: the same length, another answer.
    fs.writeFileSync(file, bundle('2'));
    expect(fs.statSync(file).size).toBe(Buffer.byteLength(bundle('1')));

    const rebuilt = await load(file, dir);
    expect(rebuilt).toMatchObject({ cache: 'absent', saved: true });
    expect(rebuilt.answer).toMatchObject({ version: '2' });
    // The old build's cache is removed when the new one is written.
    expect(cacheFiles(dir)).toEqual([path.basename(rebuilt.cacheFile!)]);
    expect((await load(file, dir)).cache).toBe('used');
  });

  it('checks the data before V8 sees it: a damaged cache is compiled over and written again', async () => {
    const first = await load(file, dir);
    const cacheFile = first.cacheFile!;
    // Bytes changed inside the data, the file's head intact: V8 would take them as they are.
    const bytes = fs.readFileSync(cacheFile);
    for (let i = bytes.length - 64; i < bytes.length - 32; i++) bytes[i] = (bytes[i]! + 1) % 256;
    fs.writeFileSync(cacheFile, bytes);
    const damaged = await load(file, dir);
    expect(damaged).toMatchObject({ cache: 'damaged', saved: true });
    expect(damaged.answer).toEqual(first.answer);
    expect((await load(file, dir)).cache).toBe('used');

    // Not a cache at all.
    fs.writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    expect(await load(file, dir)).toMatchObject({ cache: 'damaged', saved: true });
    expect((await load(file, dir)).cache).toBe('used');
  });

  it('compiles from the text when V8 refuses a whole cache, and writes it again', async () => {
    // A whole, checked cache of another text (another length): V8 itself refuses it.
    const other = path.join(root, 'app', 'other.cjs');
    fs.writeFileSync(other, bundle('1', ' // another text, longer'));
    const foreign = await load(other, dir);
    const first = await load(file, dir);
    fs.copyFileSync(foreign.cacheFile!, first.cacheFile!);

    const refused = await load(file, dir);
    expect(refused).toMatchObject({ cache: 'rejected', saved: true });
    expect(refused.answer).toEqual(first.answer);
    expect((await load(file, dir)).cache).toBe('used');
  });

  it('reads nothing that others could have written, and falls back to the next folder', async () => {
    const first = await load(file, dir);
    const cacheFile = first.cacheFile!;
    // The file writable by others: not read, and replaced by one of the owner's only.
    fs.chmodSync(cacheFile, 0o666);
    expect(await load(file, dir)).toMatchObject({ cache: 'absent', saved: true });
    expect(mode(cacheFile)).toBe(0o600);
    // Through a link: not followed.
    const elsewhere = path.join(root, 'elsewhere.v8cache');
    fs.renameSync(cacheFile, elsewhere);
    fs.symlinkSync(elsewhere, cacheFile);
    expect((await load(file, dir)).cache).toBe('absent');

    // A folder others can write to, or a link to a folder, is passed over for the next one.
    const fallback = path.join(root, 'fallback');
    fs.chmodSync(dir, 0o777);
    const shared = await load(file, dir, fallback);
    expect(shared).toMatchObject({ cache: 'absent', saved: true });
    expect(path.dirname(shared.cacheFile!)).toBe(fallback);
    const linked = path.join(root, 'linked');
    fs.chmodSync(dir, 0o700);
    fs.symlinkSync(dir, linked);
    expect(path.dirname((await load(file, linked, fallback)).cacheFile!)).toBe(fallback);
    // No folder at all: the bundle still runs, nothing is kept.
    fs.chmodSync(dir, 0o777);
    expect(await load(file, dir)).toMatchObject({ cache: 'no-folder', saved: false, cacheFile: null });
    expect((await load(file, dir)).answer).toMatchObject({ version: '1' });
  });
});
