/**
 * Loads a CommonJS bundle through V8 with the code V8 compiled for it at an earlier start: the
 * server's bundle (dist/cli/server.cjs) is 2.6 MB of JavaScript, and compiling it again at every
 * start was a fifth of the server's start-up on Node 20, which has no module compile cache
 * (docs/benchmarks.md, startup). Node 22.8 and later have one, and src/cli/index.ts lets
 * Node's cache do this there; this file serves the runtimes without it.
 *
 * The cache is one file per bundle, Node version and architecture, named by a SHA-256 of the
 * bundle's text: V8 itself checks only the text's length, so a rebuilt bundle of the same length
 * must never meet the code of the old one. The file carries a SHA-256 of its own content, checked
 * before V8 sees it: V8 does not check the data of a cache it accepts, and damaged data can crash
 * the process (a crash that would come back at every start). It is read only from a folder owned
 * by this user that nobody else can write to, and only when the file itself is a regular file of
 * this user's that nobody else can write (the code in it runs as the server). A cache V8 refuses
 * (another V8, other flags) or that is damaged costs one ordinary compile and is written again.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** What the loader did with the cache: `used`, or why the bundle was compiled from its text. */
export type CodeCacheState = 'used' | 'absent' | 'damaged' | 'rejected' | 'no-folder';

export interface LoadedBundle<T> {
  exports: T;
  cache: CodeCacheState;
  /** The cache file this bundle reads and writes; undefined when no folder could hold it. */
  cacheFile: string | undefined;
  /**
   * Writes what V8 has compiled of the bundle so far (the functions a start and its first
   * requests ran, not only the top level), unless the cache was used. Never throws: a cache that
   * cannot be written leaves the next start as it was.
   */
  save(): boolean;
}

const SUFFIX = '.v8cache';
const MAGIC = Buffer.from('annotary-v8cache-1\n');
const DIGEST = 32;
/** A temporary file older than this was left by a start that died while writing. */
const STALE_TMP_MS = 10 * 60_000;

const uid = () => process.getuid?.();

/**
 * Creates `dir` when missing (owner only) and says whether it may hold the cache: a real folder
 * (not a link), this user's, writable by nobody else, writable by this user.
 */
function usableFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== uid() || (stat.mode & 0o022) !== 0) return false;
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

type Read = { data: Buffer } | { missing: true } | { damaged: true };

/** The cache's data when the file is safe to use and whole. */
function readCache(file: string): Read {
  let fd: number;
  try {
    // Never through a link: the file itself must be checked, not what a link points at.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return { missing: true };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.uid !== uid() || (stat.mode & 0o022) !== 0 || stat.nlink !== 1) {
      return { missing: true };
    }
    const bytes = fs.readFileSync(fd);
    const head = MAGIC.length + DIGEST;
    if (bytes.length <= head || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return { damaged: true };
    const data = bytes.subarray(head);
    const digest = createHash('sha256').update(data).digest();
    return digest.equals(bytes.subarray(MAGIC.length, head)) ? { data } : { damaged: true };
  } catch {
    return { missing: true };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes to a new temporary file and renames it, so a start never reads half a file. */
function writeCache(file: string, data: Buffer, base: string, sourceHash: string): boolean {
  const tmp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  try {
    const digest = createHash('sha256').update(data).digest();
    fs.writeFileSync(tmp, Buffer.concat([MAGIC, digest, data]), { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
  // Caches of earlier builds of this bundle are dead weight (other Node versions' stay), and so
  // are temporary files of starts that died while writing.
  try {
    const dir = path.dirname(file);
    for (const name of fs.readdirSync(dir)) {
      if (!name.startsWith(`${base}.`)) continue;
      const full = path.join(dir, name);
      const oldBuild = name.endsWith(SUFFIX) && !name.includes(sourceHash);
      const leftOver = name.endsWith('.tmp') && Date.now() - fs.statSync(full).mtimeMs > STALE_TMP_MS;
      if (oldBuild || leftOver) fs.rmSync(full, { force: true });
    }
  } catch {
    // Another start may be cleaning the same folder.
  }
  return true;
}

/**
 * Runs the CommonJS file `file` as Node's loader would (its own `require`, `module`, `exports`,
 * `__filename`, `__dirname`) and returns its exports, with the cache kept in the first of
 * `dirs` that can hold it. The file must not use `import()`: a script compiled through `vm` has
 * no loader for it (the server's bundle turns each into a `require`). Not for Windows, where the
 * folder's and file's owners cannot be checked (src/cli/index.ts uses Node's loader there).
 */
export function loadWithCodeCache<T>(file: string, dirs: readonly string[]): LoadedBundle<T> {
  const source = fs.readFileSync(file, 'utf8');
  const base = path.basename(file);
  const sourceHash = createHash('sha256').update(source).digest('hex').slice(0, 20);
  const dir = dirs.find(usableFolder);
  const cacheFile =
    dir === undefined ? undefined : path.join(dir, `${base}.${sourceHash}-${process.version}-${process.arch}${SUFFIX}`);
  const read: Read = cacheFile === undefined ? { missing: true } : readCache(cacheFile);
  const cachedData = 'data' in read ? read.data : undefined;
  let cache: CodeCacheState =
    cacheFile === undefined ? 'no-folder' : 'damaged' in read ? 'damaged' : cachedData ? 'used' : 'absent';

  const script = new vm.Script(nodeModule.wrap(source), { filename: file, cachedData });
  if (cachedData && script.cachedDataRejected) cache = 'rejected';
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as unknown };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));

  let saved = false;
  return {
    exports: module.exports as T,
    cache,
    cacheFile,
    save() {
      if (!cacheFile || cache === 'used' || saved) return false;
      saved = true;
      let data: Buffer;
      try {
        data = script.createCachedData();
      } catch {
        return false;
      }
      return writeCache(cacheFile, data, base, sourceHash);
    },
  };
}
