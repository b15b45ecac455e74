// `npm start` runs this first: it compiles only when the build is missing or older than the
// sources, so a start after an unchanged checkout does not wait for tsc. Plain JavaScript: it
// runs before anything is compiled, and on installs without the dev tools.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'cli', 'index.js');
const inputs = ['src', 'web', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/bundle-cli.mjs'].map(
  (p) => path.join(root, p),
);

/** The newest modification time under `p` (a file or a folder), 0 when it does not exist. */
function newest(p) {
  if (!fs.existsSync(p)) return 0;
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = 0;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, entry)));
  return max;
}

const built = fs.existsSync(entry) ? fs.statSync(entry).mtimeMs : 0;
const sources = Math.max(...inputs.map(newest));
if (built > 0 && (sources === 0 || built >= sources)) process.exit(0);
if (!fs.existsSync(path.join(root, 'src'))) {
  process.stderr.write('no build in dist/ and no sources to build it from\n');
  process.exit(1);
}
process.stdout.write(
  built === 0 ? 'building (first start)...\n' : 'sources changed since the last build: building...\n',
);
const tsc = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(tsc.status ?? 1);
