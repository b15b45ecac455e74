/**
 * The memory and CPU of 100,000-asset imports on the built server, import by import: the
 * request of `import-assets` (same body) POSTed `--imports` times into new projects of one
 * server, and after each the server's peak RSS so far (VmHWM), its RSS, and the CPU time it
 * spent (user + system, from /proc: the machine's load moves it far less than wall time). No
 * raw-import baseline: it answers "what does the server hold", quickly. Takes the bench lock.
 *
 *   npx tsx bench/scripts/import-memory.ts [--engine sqlite|postgres] [--imports 2]
 *     [--assets 100000] [--entry dist/cli/index.js] [--node-flags="--max-semi-space-size=16"] [--count]
 *
 * `--entry` runs another built command (say, a copy of main's dist/cli beside this tree's
 * node_modules) without building; without it dist/ is built first. Prints one JSON line.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { assetInputs } from '../import-assets.js';
import { startAnnotary } from '../lib/annotary.js';
import { acquireBenchLock } from '../lib/lock.js';
import { readMemory } from '../lib/memory.js';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    imports: { type: 'string', default: '2' },
    assets: { type: 'string', default: '100000' },
    entry: { type: 'string' },
    'node-flags': { type: 'string', default: '' },
    /** After each import, count its tasks resting in Label as import-assets does. */
    count: { type: 'boolean', default: false },
  },
});
const engine = values.engine === 'postgres' ? 'postgres' : 'sqlite';
const imports = Number(values.imports);
const count = Number(values.assets);
const nodeFlags = (values['node-flags'] ?? '').split(' ').filter(Boolean);

/** The process's user + system CPU time so far, seconds (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

await acquireBenchLock((h) => process.stderr.write(`waiting for the bench lock (pid ${h.pid}: ${h.command})\n`));
const server = await startAnnotary({
  engine,
  runtime: 'built',
  nodeFlags,
  ...(values.entry ? { builtEntry: values.entry } : {}),
});
const mib = (bytes: number | undefined) => Math.round(((bytes ?? Number.NaN) / 1048576) * 10) / 10;
try {
  const pid = server.process.pid;
  const idle = readMemory(pid);
  const rounds = [];
  for (let r = 0; r < imports; r++) {
    const created = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', {
      name: `Import ${r}`,
    });
    const body = JSON.stringify({ assets: assetInputs(count, r) });
    const cpu = cpuSeconds(pid);
    const start = performance.now();
    const res = await fetch(`${server.url}/v2/project/${created.data.project._id}/cloud`, {
      method: 'POST',
      headers: { apikey: server.apiKey, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /cloud answered ${res.status}: ${text.slice(0, 300)}`);
    const wall = (performance.now() - start) / 1000;
    const m = readMemory(pid);
    if (values.count) {
      await server.api('GET', `/project/${created.data.project._id}/tasks?stage=Label&limit=1&fields=stage`);
    }
    rounds.push({
      wallSeconds: Math.round(wall * 100) / 100,
      cpuSeconds: Math.round((cpuSeconds(pid) - cpu) * 100) / 100,
      peakMiB: mib(m?.peakRssBytes),
      rssMiB: mib(m?.rssBytes),
      ...(values.count ? { peakAfterCountMiB: mib(readMemory(pid)?.peakRssBytes) } : {}),
    });
  }
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  const out = {
    engine,
    entry: values.entry ?? 'dist/cli/index.js',
    nodeFlags,
    idleMiB: mib(idle?.rssBytes),
    load,
    rounds,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await server.stop();
}
