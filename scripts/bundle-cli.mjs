// Bundles the `annotary` command (src/cli/index.ts) into dist/cli/: index.js and a few shared
// chunks instead of ~1,700 module files, whose loading was most of the server's and the
// commands' start time (docs/benchmarks.md, "Start-up and idle memory"). `npm run build` runs it
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

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/index.ts'],
  outdir,
  bundle: true,
  // One chunk per group of modules the commands share; `import()` stays lazy.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Chunks sit beside index.js, so `import.meta.dirname` is dist/cli as it was for tsc's files
  // one folder deep (src/http/console.ts finds dist/web from it).
  chunkNames: 'chunk-[hash]',
  // Fewer bytes to read, decode and parse at start; names are kept, so a stack trace still
  // reads, and the maps (mappings only) point it back at src/ when source maps are enabled.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  external,
  logLevel: 'warning',
  // CommonJS dependencies inside an ES module bundle call `require` for Node's built-ins.
  banner: {
    js: "import { createRequire as __annotaryRequire } from 'node:module'; const require = __annotaryRequire(import.meta.url);",
  },
});
