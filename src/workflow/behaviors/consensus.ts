import { AppError } from '../../errors.js';
import type { Stage } from '../../schemas/stage.js';
import type { TaskRow } from '../../store/schema.js';
import { adjudicate, type AdjudicationMethod } from '../consensus/adjudicate.js';
import {
  assetOfRound,
  insertAgreements,
  lockedParent,
  retireCopies,
} from '../../store/repositories/consensus.repository.js';
import { bySubmission, makeCopy, roundCopies, subStageFor } from '../consensus/copies.js';
import { agreementItems } from '../consensus/agreement-items.js';
import { agreementScore, brushClasses, lastFrameToCompare } from '../consensus/score.js';
import type { BrushClasses } from '../consensus/similarity.js';
import { type VoxelClasses, voxelClasses } from '../consensus/voxel-overlap.js';
import { videoFrameTotal } from '../../shared/tracks.js';
import { recordExit } from '../stage-exit.js';
import { consensusSubStages } from '../graph.js';
import { refuseExit, type RoutingEnv, type StageBehavior, WAIT } from '../stage-behavior.js';
import type { TaskAnswer, TaskState } from '../types.js';

/**
 * The Consensus container (DECISIONS 4). A task entering it is a parent: it waits there while
 * one copy per sub-stage is made and routed into that sub-stage. A copy entering it (submitted
 * out of its sub-stage, whose next is the container) rests there, done; when it is the last of
 * its round, the round is scored and adjudicated, and the parent leaves by next[0] (score at or
 * above threshold), gets one more copy (dynamicConsensus, below maxCopies), or leaves by next[1].
 */

interface Config {
  threshold: number;
  method: AdjudicationMethod;
  dynamic: boolean;
  minCopies: number;
  maxCopies: number;
}

/** Scores are ratios of small counts and IoUs: 2/3 must pass a threshold written 0.6667 rounded down. */
const EPSILON = 1e-9;

/**
 * The score as stored and compared: 6 decimals. tasks.consensus_score is a 4-byte float on
 * PostgreSQL (8 bytes on SQLite); 6 decimals round-trip through both, so both report the same.
 */
const stored = (score: number) => Math.round(score * 1e6) / 1e6;

function configOf(stage: Stage): Config {
  const c = stage.consensusConfig ?? {};
  return {
    threshold: c.threshold ?? 1,
    method: c.adjudicationMethod ?? 'majority',
    dynamic: c.dynamicConsensus ?? false,
    minCopies: c.minCopies ?? 2,
    maxCopies: c.maxCopies ?? 5,
  };
}

async function addCopy(parent: TaskRow, stage: Stage, k: number, env: RoutingEnv): Promise<void> {
  const copy = makeCopy(parent, stage.id, env);
  env.effects.newTasks.push(copy);
  await env.route({ row: copy, isNew: true }, subStageFor(env.project.stages, stage.id, k).id, 'consensus');
}

async function startRound(parent: TaskState, stage: Stage, env: RoutingEnv): Promise<void> {
  const subs = consensusSubStages(env.project.stages, stage.id);
  if (subs.length === 0) throw new AppError('CONFLICT', `Consensus stage "${stage.id}" has no sub-stages`);
  // A parent back in the container starts over: the previous round is kept in history only.
  if (!parent.isNew) await retireCopies(env.trx, parent.row.id, stage.id, env.now(), { openOnly: false });
  parent.row.consensus_score = null;
  const count = Math.max(subs.length, configOf(stage).minCopies);
  for (let k = 0; k < count; k += 1) await addCopy(parent.row, stage, k, env);
}

/**
 * The parent row, as this run last changed it or as stored. Two copies submitted at once must
 * not each see the other still open (and both wait forever): on PostgreSQL the parent's row
 * lock makes the second wait for the first to commit, and its next reads see that copy done.
 * SQLite runs one writing transaction at a time.
 */
async function loadParent(env: RoutingEnv, id: string): Promise<TaskRow | undefined> {
  const pending = env.effects.updatedTasks.find((r) => r.id === id);
  if (pending) return pending;
  return lockedParent(env.trx, id);
}

function track(env: RoutingEnv, row: TaskRow): void {
  if (!env.effects.updatedTasks.includes(row)) env.effects.updatedTasks.push(row);
}

async function leave(parent: TaskRow, stage: Stage, index: number, env: RoutingEnv): Promise<void> {
  const to = stage.next?.[index];
  if (to === undefined) throw new AppError('CONFLICT', `Consensus stage "${stage.id}" has no output ${index}`);
  const state: TaskState = { row: parent, isNew: false };
  recordExit(state, stage, env, { trigger: 'consensus' });
  await env.route(state, to, 'consensus');
}

/**
 * The last frame (from 0) of the task's video or point-cloud sequence, whose objects are compared
 * as tracks; undefined for a still image or a paged asset. A video without its frame count yet
 * goes to the last frame any copy names, as its export does.
 */
async function lastFrameOf(parent: TaskRow, answers: TaskAnswer[], env: RoutingEnv): Promise<number | undefined> {
  const asset = await assetOfRound(env.trx, parent.asset_id);
  return lastFrameToCompare(asset ? videoFrameTotal(asset) : undefined, answers);
}

/** What the round measured per ontology item, kept for the Quality page. */
async function keepMeasures(
  parent: TaskRow,
  answers: TaskAnswer[],
  layers: (BrushClasses | undefined)[],
  voxels: (VoxelClasses | undefined)[],
  stage: Stage,
  env: RoutingEnv,
  lastFrame: number | undefined,
): Promise<void> {
  const decidedAt = env.now();
  const rows = agreementItems(answers, env.project.categorySchema, layers, lastFrame, voxels).map((item) => ({
    id: env.newId(),
    project_id: parent.project_id,
    parent_task_id: parent.id,
    asset_id: parent.asset_id,
    consensus_id: stage.id,
    schema_id: item.schemaId,
    kind: item.kind,
    answer_a: item.answerA,
    answer_b: item.answerB,
    value: item.value,
    decided_at: decidedAt,
  }));
  await insertAgreements(env.trx, rows);
}

async function decide(parent: TaskRow, copies: TaskRow[], stage: Stage, env: RoutingEnv): Promise<void> {
  const config = configOf(stage);
  const schema = env.project.categorySchema;
  const answers = copies.map((c) => JSON.parse(c.answer) as TaskAnswer);
  const layers = brushClasses(schema).length
    ? await Promise.all(copies.map((c) => env.readBrush(c.brush_data_url)))
    : [];
  const voxels = voxelClasses(schema).length
    ? await Promise.all(copies.map((c) => env.readVoxels(c.medical_brush_data_url)))
    : [];
  const lastFrame = await lastFrameOf(parent, answers, env);
  await keepMeasures(parent, answers, layers, voxels, stage, env, lastFrame);
  const score = stored(agreementScore(answers, schema, layers, lastFrame, voxels));
  parent.answer = JSON.stringify(adjudicate(config.method, answers, schema));
  parent.consensus_score = score;
  parent.updated_at = env.now();
  parent.updated_by = env.actor;
  track(env, parent);
  if (score + EPSILON >= config.threshold) return leave(parent, stage, 0, env);
  if (config.dynamic && copies.length < config.maxCopies) return addCopy(parent, stage, copies.length, env);
  return leave(parent, stage, 1, env);
}

async function arrive(task: TaskState, stage: Stage, env: RoutingEnv): Promise<void> {
  const row = task.row;
  row.completed_at = env.now();
  row.completed_by = env.actor;
  if (row.consensus_id !== stage.id || row.parent_task_id === null) return;
  const parent = await loadParent(env, row.parent_task_id);
  // The parent left (requeued away): the copy is kept as it is, nothing is decided.
  if (!parent || parent.deleted === 1 || parent.stage_id !== stage.id) return;
  const copies = (await roundCopies(env, parent.id, stage.id)).filter((c) => c.id !== row.id);
  copies.push(row);
  if (copies.some((c) => c.stage_id !== stage.id)) return;
  await decide(parent, copies.sort(bySubmission), stage, env);
}

export const consensusBehavior: StageBehavior = {
  async enter(task, stage, env) {
    if (task.row.type === 'consensus') await arrive(task, stage, env);
    else await startRound(task, stage, env);
    return WAIT;
  },
  // A parent leaves when its round is decided, a copy never: nobody sends either on.
  exit: refuseExit,
};
