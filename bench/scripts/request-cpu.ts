/**
 * CPU time per request of Annotary's own work, in process: GET /v2/task/{id} and
 * GET /v2/project/{id} through Fastify's inject (no sockets, no load generator), one at a
 * time, measured with process.cpuUsage over rounds. It needs no quiet machine and no benchmark
 * lock: another process slows the loop down but adds little to the CPU each request takes. Used
 * to compare two trees of the code (run this file from each, alternately):
 *
 *   npx tsx bench/scripts/request-cpu.ts [sqlite|postgres] [requests per round, 2000] [rounds, 5]
 *
 * Prints one JSON line: µs of CPU per request, each round and the median.
 */
import { makeTestApp } from '../../test/helpers/app.js';
import { fiveStageWorkflow, streetSceneOntology } from '../lib/fixtures.js';

const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const perRound = Number(process.argv[3] ?? 2000);
const rounds = Number(process.argv[4] ?? 5);

const t = await makeTestApp(engine, { env: { ANNOTARY_RUN_WORKER: 'false' } });
await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000_000 }).execute();
const created = await t.call('POST', '/v2/project', { body: { name: 'Street scenes' } });
const projectId = (created.json() as { data: { project: { _id: string } } }).data.project._id;
await t.call('POST', `/v2/project/${projectId}`, { body: { categorySchema: streetSceneOntology() } });
await t.call('POST', `/v2/project/${projectId}`, { body: { stages: fiveStageWorkflow() } });
await t.call('POST', `/v2/project/${projectId}`, { body: { batches: [{ name: 'January' }, { name: 'February' }] } });
const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, {
  body: { assets: [{ data: 'https://cdn.example.com/a/street-1.jpg', batches: ['January'] }] },
});
const taskId = (imported.json() as { data: { assets: { taskId: string }[] } }).data.assets[0]?.taskId;

async function cpuPerRequest(url: string, n: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await t.call('GET', url);
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const urls = { task: `/v2/task/${taskId}`, project: `/v2/project/${projectId}` };
for (const url of Object.values(urls)) await cpuPerRequest(url, perRound); // warm-up
const out: Record<string, { rounds: number[]; median: number }> = {};
for (const [name, url] of Object.entries(urls)) {
  const list: number[] = [];
  for (let r = 0; r < rounds; r++) list.push(Math.round(await cpuPerRequest(url, perRound)));
  out[name] = { rounds: list, median: [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)] ?? NaN };
}
process.stdout.write(`${JSON.stringify({ engine, perRound, ...out })}\n`);
await t.close();
process.exit(0);
