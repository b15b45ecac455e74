/**
 * Loads a CommonJS bundle through V8 with the code V8 compiled for it at an earlier start: the
 * server's bundle (dist/cli/server.cjs) is 2.6 MB of JavaScript, and compiling it again at every
 * start was a fifth of the server's start-up on Node 20, which has no module compile cache of its
 * own (docs/benchmarks.md, "Session 10"). The same path is taken on every Node version.
 *
 * The cache is one file per bundle, Node version and architecture, named by a SHA-256 of the
 * bundle's text: V8 itself checks only the text's length, so a rebuilt bundle of the same length
 * must never meet the code of the old one. It is read only from a folder owned by this user and
 * writable by nobody else (code read from it runs as the server). A cache V8 refuses (another
 * V8, other flags, a damaged file) costs one ordinary compile and is written again.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** What the loader did with the cache: `used`, or why the bundle was compiled from its text. */
export type CodeCacheState = 'used' | 'absent' | 'rejected' | 'unsafe-folder' | 'off';

export interface LoadedBundle<T> {
  exports: T;
  cache: CodeCacheState;
  /** The cache file this bundle reads and writes; undefined when the cache is off or unsafe. */
  cacheFile: string | undefined;
  /**
   * Writes what V8 has compiled of the bundle so far (the functions a start and its first
   * requests ran, not only the top level), unless the cache was used. Never throws: a cache that
   * cannot be written leaves the next start as it was.
   */
  save(): boolean;
}

export interface CodeCacheOptions {
  /** The folder of the cache files; created (mode 0700) when missing. */
  dir: string;
  /** True: compile from the text and keep nothing (NODE_DISABLE_COMPILE_CACHE=1). */
  disabled?: boolean;
}

const SUFFIX = '.v8cache';

/** A folder that only this user can write to; on systems without user ids, any folder. */
function safeFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.statSync(dir);
    if (!stat.isDirectory()) return false;
    if (typeof process.getuid !== 'function') return true;
    return stat.uid === process.getuid() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return undefined;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return undefined;
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes to a temporary name and renames, so a start never reads half a file. */
function writeCache(file: string, data: Buffer, stalePrefix: string, keep: string): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
  // Caches of earlier builds of this bundle are dead weight; other Node versions' stay.
  try {
    const dir = path.dirname(file);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(stalePrefix) && name.endsWith(SUFFIX) && !name.includes(keep)) {
        fs.rmSync(path.join(dir, name), { force: true });
      }
    }
  } catch {
    // Another start may be cleaning the same folder.
  }
  return true;
}

/**
 * Runs the CommonJS file `file` as Node's loader would (its own `require`, `module`, `exports`,
 * `__filename`, `__dirname`) and returns its exports. The file must not use `import()`: a script
 * compiled through `vm` has no loader for it (the server's bundle turns each into a `require`).
 */
export function loadWithCodeCache<T>(file: string, options: CodeCacheOptions): LoadedBundle<T> {
  const source = fs.readFileSync(file, 'utf8');
  const base = path.basename(file);
  const sourceHash = createHash('sha256').update(source).digest('hex').slice(0, 20);
  const key = `${sourceHash}-${process.version}-${process.arch}`;
  let cacheFile: string | undefined;
  let cachedData: Buffer | undefined;
  let cache: CodeCacheState;
  if (options.disabled) {
    cache = 'off';
  } else if (!safeFolder(options.dir)) {
    cache = 'unsafe-folder';
  } else {
    cacheFile = path.join(options.dir, `${base}.${key}${SUFFIX}`);
    cachedData = readCache(cacheFile);
    cache = cachedData ? 'used' : 'absent';
  }

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
      return writeCache(cacheFile, data, `${base}.`, sourceHash);
    },
  };
}
