// Bundles the `annotary` command (src/cli/index.ts) into dist/cli/: index.js and a few shared
// chunks instead of ~1,700 module files, whose loading was most of the server's and the
// commands' start time (docs/benchmarks.md, startup). `npm run build` runs it
// after tsc, which still writes the library (dist/client, with its .d.ts) and the other modules.
// Each command's module stays behind a dynamic import, so a chunk loads only with its command.
// Plain JavaScript: it runs with the build tools only.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli');

// Loaded from node_modules as before: native modules, the drivers and SDKs each engine or
// storage loads when it is first used, and swagger-ui, which serves files beside its own code.
const external = [
  'better-sqlite3',
  'better-sqlite3-node22',
  'pg',
  'pg-native',
  'ioredis',
  'undici',
  '@aws-sdk/*',
  '@azure/*',
  '@google-cloud/*',
  '@fastify/swagger-ui',
];

// Chunks of an earlier build carry other hashes: remove them so dist/cli holds one build.
if (fs.existsSync(outdir)) {
  for (const name of fs.readdirSync(outdir)) if (name.startsWith('chunk-')) fs.rmSync(path.join(outdir, name));
}

// Shared by both builds: whitespace and syntax minified (fewer bytes to read and decode), names
// kept so a stack trace still reads; linked maps (mappings only) point it back at src/ when
// source maps are enabled.
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  external,
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/cli/index.ts'],
  outdir,
  // One chunk per group of modules the commands share; `import()` stays lazy.
  splitting: true,
  format: 'esm',
  // Chunks sit beside index.js, so `import.meta.dirname` is dist/cli as it was for tsc's files
  // one folder deep (src/http/console.ts finds dist/web from it).
  chunkNames: 'chunk-[hash]',
  // CommonJS dependencies inside an ES module bundle call `require` for Node's built-ins.
  banner: {
    js: "import { createRequire as __annotaryRequire } from 'node:module'; const require = __annotaryRequire(import.meta.url);",
  },
});

// The server (`serve`, `worker`) as one CommonJS file, server.cjs: on Node 20 the command loads it
// through V8's code cache (src/cli/code-cache.ts), which Node 20 offers for scripts only, not for
// ES modules; Node 22.8 and later load it with their own module compile cache. A script compiled
// through `vm` has no loader for `import()`, so every dynamic import (the drivers and SDKs loaded
// on first use) becomes a `require`; all of them ship CommonJS.
// `import.meta` has no CommonJS form: its two uses are given the bundle's own file and folder.
await build({
  ...common,
  entryPoints: ['src/cli/serve.ts'],
  outfile: path.join(outdir, 'server.cjs'),
  format: 'cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__annotaryModuleUrl' },
  // The banner goes before esbuild's own "use strict", which then is no directive any more: the
  // bundle says it first, or the whole server would run in sloppy mode (a write to a frozen
  // object silently ignored instead of throwing).
  banner: { js: `"use strict";const __annotaryModuleUrl = require('node:url').pathToFileURL(__filename).href;` },
});
