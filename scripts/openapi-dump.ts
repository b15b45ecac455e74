import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildApp } from '../src/http/app.js';

/**
 * Writes the OpenAPI document the server serves at /v2/openapi.json to the file named by the
 * first argument (for `redocly lint` in `npm run check`, or for generating a client). The app is
 * built on a throw-away SQLite store; nothing listens.
 */
const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: tsx scripts/openapi-dump.ts <out.json>\n');
  process.exit(2);
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-openapi-'));
try {
  const config = loadConfig({ ...process.env, ANNOTARY_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' });
  const ctx = await createContext(config);
  const app = await buildApp(ctx);
  await app.ready();
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(app.swagger(), null, 2) + '\n');
  await app.close();
  await ctx.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
