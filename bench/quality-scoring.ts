/**
 * Scoring one benchmark submission of 500 objects of six tool kinds (boxes, rotated boxes,
 * polygons, points, polylines, segmentation zones) and three questions against its reference,
 * in this process, as a submit does (`scoreBenchmark`). The submission is the reference redrawn
 * a few pixels off, with some objects missed and some extra. Baselines of the same run: reading
 * the stored submission and reference (`JSON.parse`, which every submit does anyway), and the
 * same matching with each pair's objects read anew (`objectSimilarity` per pair, as a scorer that
 * does not prepare each object once would). Beside the wall time, the scorer's CPU time, which
 * another process's load does not inflate.
 *
 *   npm run bench -- quality-scoring [--rounds 30] [--objects 500]
 */
import type { CategorySchema } from '../src/schemas/category-schema.js';
import { scoreBenchmark } from '../src/workflow/consensus/benchmark-score.js';
import { bestMatch, objectSimilarity } from '../src/workflow/consensus/similarity.js';
import type { TaskAnswer } from '../src/workflow/types.js';
import { wholeNumber } from './lib/labelled-project.js';
import { medianMs } from './lib/stats.js';
import { defineBenchmark, type Result } from './lib/types.js';

/** Tool kinds and their share of the objects. */
const MIX = [
  ['car', 'bounding-box', 0.3],
  ['ship', 'rotated-bounding-box', 0.1],
  ['roof', 'polygon', 0.2],
  ['pin', 'point', 0.2],
  ['lane', 'polyline', 0.1],
  ['road', 'segmentation', 0.1],
] as const;

const SCHEMA = {
  tools: MIX.map(([schemaId, tool]) => ({ schemaId, title: schemaId, tool })),
  classifications: [
    { schemaId: 'weather', title: 'Weather', tool: 'radio', options: [] },
    { schemaId: 'tags', title: 'Tags', tool: 'checkbox', options: [] },
    { schemaId: 'note', title: 'Note', tool: 'text' },
  ],
  relations: [],
} as unknown as CategorySchema;

/** A repeatable pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Obj = Record<string, unknown>;

/** An n-gon of radius r about (cx, cy), each vertex jittered by `j`. */
function ngon(rnd: () => number, cx: number, cy: number, r: number, n: number, j: number): number[][] {
  return Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    return [cx + r * Math.cos(a) + (rnd() - 0.5) * j, cy + r * Math.sin(a) + (rnd() - 0.5) * j];
  });
}

/** One object of a kind at (x, y) on a 4000 x 3000 image; `j` pixels of jitter. */
function draw(rnd: () => number, schemaId: string, kind: string, x: number, y: number, j: number): Obj {
  const d = () => (rnd() - 0.5) * j;
  const id = `${schemaId}-${x}-${y}`;
  switch (kind) {
    case 'bounding-box':
      return { schemaId, objectId: id, 'bounding-box': { x: x + d(), y: y + d(), width: 60 + d(), height: 40 + d() } };
    case 'rotated-bounding-box':
      return {
        schemaId,
        objectId: id,
        'rotated-bounding-box': { x: x + d(), y: y + d(), width: 80, height: 30, rotation: 30 + d() },
      };
    case 'polygon':
      return { schemaId, objectId: id, polygon: ngon(rnd, x + 30, y + 30, 30, 12, j) };
    case 'point':
      return { schemaId, objectId: id, point: [x + d(), y + d()] };
    case 'polyline':
      return { schemaId, objectId: id, polyline: ngon(rnd, x + 40, y + 40, 40, 6, j).slice(0, 5) };
    default:
      return {
        schemaId,
        objectId: id,
        segmentation: { zones: [{ region: ngon(rnd, x + 40, y + 40, 40, 24, j), holes: [] }] },
      };
  }
}

/** A reference of `n` objects spread over the image, and a submission redrawn from it. */
function answers(n: number): { reference: TaskAnswer; submission: TaskAnswer } {
  const rnd = random(31);
  const ref: Obj[] = [];
  const got: Obj[] = [];
  let placed = 0;
  for (const [schemaId, kind, share] of MIX) {
    const count = Math.round(n * share);
    for (let i = 0; i < count; i++, placed++) {
      // A grid of 100 px cells, so neighbours are near but do not overlap much.
      const x = 50 + (placed % 38) * 100;
      const y = 50 + Math.floor(placed / 38) * 100;
      ref.push(draw(rnd, schemaId, kind, x, y, 0));
      const fate = rnd();
      if (fate < 0.05) continue; // missed
      got.push(draw(rnd, schemaId, kind, x, y, 4));
      if (fate > 0.97) got.push(draw(rnd, schemaId, kind, x + 20, y + 10, 4)); // extra
    }
  }
  const classifications = (weather: string, tags: string[]) => [
    { schemaId: 'weather', answer: weather },
    { schemaId: 'tags', answer: tags },
    { schemaId: 'note', answer: 'two lanes' },
  ];
  return {
    reference: { tools: ref, classifications: classifications('Sunny', ['a', 'b']), relations: [] } as TaskAnswer,
    submission: { tools: got, classifications: classifications('Rainy', ['b', 'c']), relations: [] } as TaskAnswer,
  };
}

/**
 * Median CPU time of this process per call: what other processes' load does not add to (it
 * only delays the call), so it reads the scorer's own cost on a busy machine.
 */
function medianCpuMs(f: () => unknown, rounds: number): number {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
}

/** The same matching, each pair's two objects read anew by objectSimilarity. */
function allPairs(submission: TaskAnswer, reference: TaskAnswer): number {
  let sum = 0;
  for (const tool of SCHEMA.tools ?? []) {
    const a = reference.tools.filter((o) => o.schemaId === tool.schemaId);
    const b = submission.tools.filter((o) => o.schemaId === tool.schemaId);
    sum += bestMatch(a, b, (x, y) => objectSimilarity(tool.tool, x, y) ?? 0).length;
  }
  return sum;
}

export default defineBenchmark({
  name: 'quality-scoring',
  description:
    'scoring a 500-object benchmark submission against its reference, beside reading both and matching without preparing objects once',
  async run(opts): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 30, 'rounds');
    const n = wholeNumber(opts.extra.objects, 500, 'objects');
    const { reference, submission } = answers(n);
    const [refText, gotText] = [JSON.stringify(reference), JSON.stringify(submission)];
    const parse = () => [JSON.parse(refText) as TaskAnswer, JSON.parse(gotText) as TaskAnswer];
    const score = () => scoreBenchmark(submission, reference, SCHEMA);
    const naive = () => allPairs(submission, reference);
    for (const f of [parse, score, naive]) medianMs(f, 3);
    const parseMs = medianMs(parse, rounds);
    const scoreMs = medianMs(score, rounds);
    const naiveMs = medianMs(naive, Math.min(rounds, 5));
    const scoreCpuMs = medianCpuMs(score, rounds);
    const result = score();
    const objects = result.items.filter((i) => i.kind === 'object');
    const rows = [
      ['JSON.parse of submission and reference (baseline)', parseMs.toFixed(2), (parseMs / parseMs).toFixed(2)],
      ['scoreBenchmark', scoreMs.toFixed(2), (scoreMs / parseMs).toFixed(2)],
      ['scoreBenchmark, CPU time of this process', scoreCpuMs.toFixed(2), (scoreCpuMs / parseMs).toFixed(2)],
      ['matching with objects read anew per pair', naiveMs.toFixed(2), (naiveMs / parseMs).toFixed(2)],
    ];
    return {
      table: { columns: ['what', 'median ms', 'x baseline'], rows },
      summary:
        `scoring ${reference.tools.length} reference objects against ${submission.tools.length}: ` +
        `${scoreMs.toFixed(1)} ms (median of ${rounds}; ${scoreCpuMs.toFixed(1)} ms of CPU), target 50 ms; score ${result.score}`,
      data: {
        referenceObjects: reference.tools.length,
        submittedObjects: submission.tools.length,
        parseMs,
        scoreMs,
        scoreCpuMs,
        naiveMs,
        score: result.score,
        items: objects.map((i) => ({ schemaId: i.schemaId, score: i.score, extra: i.extra })),
      },
      notes: [`${rounds} measured rounds after 3 warm-up rounds; read-anew matching: ${Math.min(rounds, 5)} rounds`],
    };
  },
});
