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
async function load(file: string, dir: string, off = false): Promise<Load> {
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', CHILD, file, dir, ...(off ? ['off'] : [])], {
    cwd: REPO_ROOT,
  });
  return JSON.parse(stdout.trim()) as Load;
}

/**
 * A CommonJS module with what the server's bundle uses: `require` of a built-in and of a file
 * beside it (resolved from its own folder), `__dirname`, `module.exports`.
 */
function bundle(version: string): string {
  return [
    "const path = require('node:path');",
    "const helper = require('./helper.cjs');",
    `function answer() { return { version: '${version}', folder: path.basename(__dirname), helper: helper.name }; }`,
    'module.exports = { answer };',
    '',
  ].join('\n');
}

const cacheFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.v8cache'));

describe('the code cache the server bundle is loaded through', () => {
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
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(first.cacheFile!).mode & 0o777).toBe(0o600);
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

  it('compiles from the text when V8 refuses the cache, and writes it again', async () => {
    const first = await load(file, dir);
    fs.writeFileSync(first.cacheFile!, Buffer.alloc(fs.statSync(first.cacheFile!).size, 7));

    const damaged = await load(file, dir);
    expect(damaged).toMatchObject({ cache: 'rejected', saved: true });
    expect(damaged.answer).toEqual(first.answer);
    expect((await load(file, dir)).cache).toBe('used');
  });

  it('reads nothing from a folder others can write to, and keeps nothing when turned off', async () => {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o777);
    const shared = await load(file, dir);
    expect(shared).toMatchObject({ cache: 'unsafe-folder', saved: false, cacheFile: null });
    expect(shared.answer).toMatchObject({ version: '1' });
    expect(cacheFiles(dir)).toEqual([]);

    fs.chmodSync(dir, 0o700);
    const off = await load(file, dir, true);
    expect(off).toMatchObject({ cache: 'off', saved: false });
    expect(cacheFiles(dir)).toEqual([]);
  });
});
