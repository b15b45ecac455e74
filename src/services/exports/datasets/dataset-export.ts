import type { AppContext } from '../../../context.js';
import type { CategorySchema } from '../../../schemas/category-schema.js';
import type { TaskExportFilter } from '../../../store/repositories/export.repository.js';
import { cocoEntries } from './coco.js';
import type { DatasetFormat } from './dataset-formats.js';
import { cvatEntries } from './cvat.js';
import { datasetSource, type DatasetSource } from './dataset-source.js';
import { type ZipEntry } from './dataset-zip.js';
import { kittiEntries } from './kitti.js';
import { masksEntries } from './masks.js';
import { vocEntries } from './voc.js';
import { yoloEntries } from './yolo.js';

const WRITERS: Record<DatasetFormat, (src: DatasetSource) => AsyncGenerator<ZipEntry>> = {
  coco: cocoEntries,
  yolo: yoloEntries,
  voc: vocEntries,
  masks: masksEntries,
  cvat: cvatEntries,
  kitti: kittiEntries,
};

/** The zip entries of a dataset export of the tasks the filter selects. */
export function datasetEntries(
  ctx: AppContext,
  format: DatasetFormat,
  filter: TaskExportFilter,
  schema: CategorySchema,
  keyframesOnly = false,
): AsyncGenerator<ZipEntry> {
  return WRITERS[format](datasetSource(ctx, ctx.store.db, filter, schema, keyframesOnly));
}
