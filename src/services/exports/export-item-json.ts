import type { HistoryPageRow, IssuePageRow, TaskPageRow } from '../../store/repositories/export.repository.js';
import type { BenchmarkRecord } from '../../store/repositories/benchmark.repository.js';
import { issueView } from '../issues/issue-rules.js';
import { brushFramesOut } from '../files/layers/brush-frames.js';

/*
 * The JSON text of one export item (DECISIONS section 7), written piece by piece to a sink
 * rather than built as an object and stringified, or even as one string. Answers are stored as
 * JSON text already: parsing them only to stringify them again was half the CPU time of a large
 * export, and most of its garbage. So the stored text of an answer,
 * `{"tools":[...],"classifications":[...],"relations":[...]}` as every writer stores it
 * (validateAnswer's shape, JSON.stringify), is written as it is; any other form (an older or
 * foreign row) goes the slow, normalizing way. Metadata and context data are stored JSON text too
 * and go out unchanged. The large pieces (answers, metadata) reach the sink as the strings the
 * database gave, never concatenated first: joining an item into one string, then into a chunk,
 * copied every byte of an export twice more in V8's heap before it reached the zip.
 */

/** Where item JSON goes. Each piece is written out as it comes. */
export interface JsonSink {
  write(text: string): void;
}

const q = JSON.stringify;

/** `"tools":[...],"classifications":[...],"relations":[...]` of a stored answer. */
export function answerFields(text: string): string {
  if (text.startsWith('{"tools":[') && text.endsWith(']}') && text.includes('],"relations":[')) {
    return text.slice(1, -1);
  }
  const a = JSON.parse(text) as { tools?: unknown; objects?: unknown; classifications?: unknown; relations?: unknown };
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  return `"tools":${q(list(a.tools ?? a.objects))},"classifications":${q(list(a.classifications))},"relations":${q(list(a.relations))}`;
}

/** DECISIONS 7: the 0-1 consensus score as a percentage with two decimals, or null. */
export function consensusAverage(score: number | null): number | null {
  return score === null ? null : Math.round(score * 10_000) / 100;
}

/**
 * A stored answer's three lists as item JSON (export-readable.ts names what they hold); `taskId`
 * is given for the task's current answer (not for history entries).
 */
export type AnswerWriter = (text: string, taskId?: string) => string;

function writeHistoryEntry(
  out: JsonSink,
  h: HistoryPageRow,
  stageNames: Map<string, string>,
  fields: AnswerWriter,
): void {
  out.write(
    `{"_id":${q(h.id)},"taskHistory":${q(h.id)},"stage":${q(stageNames.get(h.stage_id) ?? h.stage_name)}` +
      `,"stageId":${q(h.stage_id)},"duration":${h.duration},"idleDuration":0,"completedAt":${q(h.completed_at)}` +
      `,"completedBy":${q(h.completed_by)},"submittedBy":${q(h.completed_by)},"reviewStatus":${q(h.review_status)}` +
      `,"consensusId":${q(h.consensus_id)},"isSkipped":${h.is_skipped === 1},`,
  );
  out.write(fields(h.answer));
  out.write('}');
}

export interface TaskItemOptions {
  includeMetadata: boolean;
  /** The task's history entries, oldest first; undefined leaves `stageHistory` out. */
  history: HistoryPageRow[] | undefined;
  stageNames: Map<string, string>;
  batchNames: string[];
  /** A benchmark task's reference and scored submissions (exports with taskTypes benchmark). */
  benchmark?: BenchmarkRecord | undefined;
  /** The answer's lists; answerFields (the stored text as it is) unless told. */
  fields?: AnswerWriter | undefined;
  /** Signs a stored brush link afresh (files/layers/brush-layer.ts taskLinks); as stored unless told. */
  links?: ((stored: string | null) => string | null) | undefined;
  /** The asset's metadata as written (patient tags left out: shared/patient-tags.ts); as stored unless told. */
  metadata?: ((stored: string | null) => string) | undefined;
  /** Writes the answer in parts instead of `fields`, when it answers an iterator (a video's tracks). */
  parts?: ((out: JsonSink, t: TaskPageRow) => Iterator<void> | undefined) | undefined;
}

/**
 * Writes one task item. An answer written in parts (`o.parts`) makes this answer an iterator that
 * writes the rest of the item, one part per step; otherwise the whole item is written at once.
 */
export function writeTaskItem(out: JsonSink, t: TaskPageRow, o: TaskItemOptions): void | Iterator<void> {
  const fields = o.fields ?? answerFields;
  out.write(`{"asset":${q(t.data)},"assetId":${q(t.asset_id)},"externalId":${q(t.external_id)},"dataset":`);
  // The pages' addresses as stored (a JSON list of strings written by the import).
  out.write(t.dataset ?? '[]');
  if (o.includeMetadata) {
    out.write(',"metadata":');
    out.write(o.metadata ? o.metadata(t.metadata) : (t.metadata ?? '{}'));
  }
  out.write(`,"batches":${q(o.batchNames)},"contextData":`);
  out.write(t.context_data ?? 'null');
  out.write(
    `,"task":{"taskId":${q(t.id)},"stage":${q(o.stageNames.get(t.stage_id) ?? t.stage_id)},"stageId":${q(t.stage_id)}` +
      `,"updatedAt":${q(t.updated_at)},"updatedBy":${q(t.updated_by)},`,
  );
  const parts = o.parts?.(out, t);
  if (!parts) {
    out.write(fields(t.answer, t.id));
    writeTaskTail(out, t, o, fields);
    return undefined;
  }
  return (function* () {
    for (let r = parts.next(); !r.done; r = parts.next()) yield;
    writeTaskTail(out, t, o, fields);
  })();
}

/** What follows a task's answer: its brush layer, history, durations and what kind of task it is. */
function writeTaskTail(out: JsonSink, t: TaskPageRow, o: TaskItemOptions, fields: AnswerWriter): void {
  out.write(',"brushDataUrl":');
  out.write(q(o.links ? o.links(t.brush_data_url) : t.brush_data_url));
  const brushFrames = brushFramesOut(t, t.metadata, o.links ?? ((stored) => stored));
  if (brushFrames) out.write(`,"brushFrames":${JSON.stringify(brushFrames)}`);
  out.write(',"medicalBrushDataUrl":');
  out.write(q(o.links ? o.links(t.medical_brush_data_url) : t.medical_brush_data_url));
  if (o.history) {
    out.write(',"stageHistory":[');
    o.history.forEach((h, i) => {
      if (i) out.write(',');
      writeHistoryEntry(out, h, o.stageNames, fields);
    });
    out.write(']');
  }
  if (t.type === 'default') {
    out.write(`,"totalDuration":${t.total_duration},"consensusAverage":${q(consensusAverage(t.consensus_score))}}}`);
    return;
  }
  // Consensus copies (and benchmark tasks) say what they are, their parent and the parent's score.
  out.write(
    `,"totalDuration":${t.total_duration},"consensusAverage":${q(consensusAverage(t.parent_score ?? t.consensus_score))}` +
      `,"taskType":${q(t.type)},"parentTask":${q(t.parent_task_id)}`,
  );
  if (o.benchmark) writeBenchmark(out, o.benchmark);
  out.write('}}');
}

/** A benchmark's reference and each labeler's scored submission, answers spliced as stored. */
function writeBenchmark(out: JsonSink, b: BenchmarkRecord): void {
  out.write(`,"benchmark":{"source":${q(b.source)},"reference":`);
  out.write(b.reference);
  out.write(',"submissions":[');
  b.submissions.forEach((s, i) => {
    out.write(
      `${i ? ',' : ''}{"labeler":${q(s.labeler)},"score":${s.score},"submittedAt":${q(s.created_at)},"answer":`,
    );
    out.write(s.answer);
    out.write('}');
  });
  out.write(']}');
}

/** The issue resource of GET /issues, plus the asset's externalId and the stage's name. */
export function writeIssueItem(out: JsonSink, i: IssuePageRow, stageNames: Map<string, string>): void {
  out.write(q({ ...issueView(i), externalId: i.external_id, stageName: stageNames.get(i.stage_id) ?? i.stage_id }));
}
