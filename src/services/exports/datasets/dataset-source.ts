import type { AppContext } from '../../../context.js';
import type { CategorySchema } from '../../../schemas/category-schema.js';
import type { Executor } from '../../../store/db.js';
import { type Cursor, taskPage, type TaskExportFilter } from '../../../store/repositories/export.repository.js';
import { EXPORT_PAGE_LIMITS } from '../export-items.js';
import { type BrushLayer, readBrushLayer } from '../../files/layers/brush-layers.js';
import { DatasetReport } from './dataset-report.js';
import { datasetTask, type DatasetTask, FileNames } from './dataset-task.js';
import { type DatasetOntology, datasetOntology } from '../../files/layers/ontology-classes.js';
import { taskLinks } from '../../files/layers/brush-layer.js';
import { EXPORT_LINK_SECONDS } from '../export-link.js';

/*
 * What every dataset format reads: the project's ontology as classes, the tasks of the export's
 * filters one at a time (read in the JSON export's pages, so memory holds a page), their brush
 * layers on demand, and the report the README is written from.
 */

export interface DatasetSource {
  ontology: DatasetOntology;
  report: DatasetReport;
  tasks(): AsyncGenerator<DatasetTask>;
  /**
   * The brush layer of a still image (`frame` undefined) or of a video's frame, or undefined (a
   * layer that cannot be read is counted in the report).
   */
  brush(task: DatasetTask, frame?: number): Promise<BrushLayer | undefined>;
  /** A stored file link of ours signed afresh for the export's life; any other URL as it is. */
  link(stored: string): string;
}

export function datasetSource(
  ctx: AppContext,
  db: Executor,
  filter: TaskExportFilter,
  schema: CategorySchema,
  /** A video's entries as stored instead of expanded to every frame (includeOnlyKeyFrames=true). */
  keyframesOnly = false,
): DatasetSource {
  const ontology = datasetOntology(schema);
  const report = new DatasetReport();
  const fresh = taskLinks(ctx, EXPORT_LINK_SECONDS);
  return {
    ontology,
    report,
    async *tasks() {
      const names = new FileNames();
      let after: Cursor | undefined;
      for (;;) {
        const rows = await taskPage(db, filter, after, EXPORT_PAGE_LIMITS, false);
        const last = rows[rows.length - 1];
        if (!last) return;
        after = { createdAt: last.created_at, id: last.id };
        for (const row of rows) {
          const task = datasetTask(row, ontology, names, keyframesOnly);
          report.drop('objects of tools no longer in the ontology', task.unknownObjects);
          report.drop('relations (no dataset format holds them)', task.relations);
          yield task;
        }
        if (Number(last.candidates) < EXPORT_PAGE_LIMITS.tasks && rows.length === Number(last.candidates)) return;
      }
    },
    async brush(task, frame) {
      const url = frame === undefined ? (task.framed ? null : task.brushDataUrl) : task.brushFrames.get(frame);
      const outcome = await readBrushLayer(ctx, ontology, url ?? null);
      if (outcome && 'skipped' in outcome) report.drop(outcome.skipped);
      return outcome && 'layer' in outcome ? outcome.layer : undefined;
    },
    link: (stored) => fresh(stored) ?? stored,
  };
}
