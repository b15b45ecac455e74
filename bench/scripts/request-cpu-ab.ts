/**
 * CPU per request of two trees of the code (say main and a branch) in ONE process: an app of
 * each on its own store, requests sent to them in short alternating blocks, so both see the
 * same machine load at the same moments (on a loaded machine, two runs one after the other
 * differed by more than the change being measured). Fastify inject, no sockets: Annotary's own
 * work. Each block's CPU comes from process.cpuUsage; the figure is the median over blocks, and
 * the median of the per-block ratios (after / base, blocks side by side).
 *
 *   npx tsx bench/scripts/request-cpu-ab.ts <base tree> <after tree> [sqlite|postgres] [blocks 20] [per block 100] [routes]
 *
 * routes: comma-separated of task, project, list, listAnswers, next, annotate (default all).
 * The task holds the 20-box answer of `task-get`, saved as a draft (annotate saves it again).
 * A tree is a checkout with node_modules (a `git archive` of main plus `cp -al node_modules`).
 */
import { realisticAnswer } from '../task-get.js';

const [baseTree, afterTree] = [process.argv[2], process.argv[3]];
if (!baseTree || !afterTree)
  throw new Error('usage: request-cpu-ab.ts <base tree> <after tree> [engine] [blocks] [per block] [routes]');
const engine = (process.argv[4] ?? 'sqlite') as 'sqlite' | 'postgres';
const blocks = Number(process.argv[5] ?? 20);
const perBlock = Number(process.argv[6] ?? 100);
const only = process.argv[7]?.split(',');

type Route = [method: string, url: string, body?: unknown];
interface Json {
  data: { project: { _id: string }; task: { _id: string } };
}
interface Tree {
  call(
    method: string,
    url: string,
    opts: { body?: unknown },
  ): Promise<{ statusCode: number; body: string; json(): Json }>;
  close(): Promise<void>;
  store: { db: { updateTable(t: 'organizations'): { set(v: object): { execute(): Promise<unknown> } } } };
}

async function setUp(root: string): Promise<{ t: Tree; routes: Record<string, Route> }> {
  const { makeTestApp } = (await import(`${root}/test/helpers/app.ts`)) as {
    makeTestApp(engine: string, opts: object): Promise<Tree>;
  };
  const fixtures = (await import(`${root}/bench/lib/fixtures.ts`)) as Record<string, () => unknown>;
  const t = await makeTestApp(engine, { env: { ANNOTARY_RUN_WORKER: 'false' } });
  await t.store.db.updateTable('organizations').set({ plan: 'enterprise', rate_limit: 1_000_000_000 }).execute();
  const projectId = (await t.call('POST', '/v2/project', { body: { name: 'Street scenes' } })).json().data.project._id;
  const update = (body: object) => t.call('POST', `/v2/project/${projectId}`, { body });
  await update({ categorySchema: fixtures.streetSceneOntology?.() });
  await update({ stages: fixtures.fiveStageWorkflow?.() });
  await update({ batches: [{ name: 'January' }, { name: 'February' }] });
  const assets = Array.from({ length: 50 }, (_, i) => ({
    data: `https://cdn.example.com/a/${i}.jpg`,
    batches: ['January'],
  }));
  const imported = await t.call('POST', `/v2/project/${projectId}/cloud`, { body: { assets } });
  if (imported.statusCode !== 201) throw new Error(imported.body);
  const taskId = (await t.call('GET', `/v2/project/${projectId}/next`, {})).json().data.task._id;
  const body = { answer: realisticAnswer(), duration: 1000 };
  const saved = await t.call('POST', `/v2/annotate/${taskId}`, { body });
  if (saved.statusCode !== 200) throw new Error(saved.body);
  const routes: Record<string, Route> = {
    task: ['GET', `/v2/task/${taskId}`],
    project: ['GET', `/v2/project/${projectId}`],
    list: ['GET', `/v2/project/${projectId}/tasks?limit=10`],
    listAnswers: ['GET', `/v2/project/${projectId}/tasks?limit=10&includeAnswer=true`],
    next: ['GET', `/v2/project/${projectId}/next`],
    annotate: ['POST', `/v2/annotate/${taskId}`, body],
  };
  return { t, routes };
}

const trees = { base: await setUp(baseTree), after: await setUp(afterTree) };
const names = Object.keys(trees.base.routes).filter((n) => !only || only.includes(n));

async function block(which: 'base' | 'after', name: string, n: number): Promise<number> {
  const { t, routes } = trees[which];
  const [method, url, body] = routes[name] as Route;
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await t.call(method, url, body === undefined ? {} : { body });
    if (res.statusCode !== 200)
      throw new Error(`${which} ${url} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)] ?? Number.NaN;
for (const name of names) for (const which of ['base', 'after'] as const) await block(which, name, 200); // warm-up
const out: Record<string, { base: number[]; after: number[] }> = {};
for (let k = 0; k < blocks; k++) {
  for (const name of names) {
    const order = k % 2 === 0 ? (['base', 'after'] as const) : (['after', 'base'] as const);
    const lists = (out[name] ??= { base: [], after: [] });
    for (const which of order) lists[which].push(await block(which, name, perBlock));
  }
}
const figures: Record<string, unknown> = {};
for (const name of names) {
  const { base, after } = out[name] as { base: number[]; after: number[] };
  figures[name] = {
    baseUs: Math.round(median(base)),
    afterUs: Math.round(median(after)),
    medianBlockRatio: Number(median(after.map((a, i) => a / (base[i] ?? Number.NaN))).toFixed(2)),
  };
}
process.stdout.write(`${JSON.stringify({ engine, blocks, perBlock, ...figures })}\n`);
await trees.base.t.close();
await trees.after.t.close();
process.exit(0);
