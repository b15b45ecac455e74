import type { AppContext } from '../../../context.js';
import { AppError, invalidField } from '../../../errors.js';
import { chunked } from '../../../store/chunks.js';
import { defaultTasksOf, projectAssets, writePreLabel } from '../../../store/repositories/label-import.repository.js';
import { validateAnswer } from '../../../workflow/answer.js';
import { startStage } from '../../../workflow/graph.js';
import { audit } from '../../audit/audit.service.js';
import type { Principal } from '../../../access.js';
import { loadProject } from '../../identity/project-access.js';
import { projectInfo } from '../../projects/project-view.js';
import { AssetMatcher, type MatchedAsset } from './asset-matcher.js';
import { BrushWriter } from './brush-writer.js';
import { cocoImages } from './coco-import.js';
import { cvatImages } from './cvat-import.js';
import { type ImportFiles, openImportFiles } from './import-files.js';
import { IMPORT_LIMITS, tooManyImages, tooManyObjects, tooManyObjectsIn } from './import-limits.js';
import { ImportReport } from './import-report.js';
import { ImportFileError, type ImportedImage } from './imported-labels.js';
import { LabelMapper } from './label-mapping.js';
import { labelStudioImages } from './labelstudio-import.js';
import { vocImages } from './voc-import.js';
import { yoloImages } from './yolo-import.js';

/*
 * POST /project/{id}/import/labels?format=: a label file of another tool as pre-labels on the
 * tasks of the matching assets that still sit in the Start stage (the contract's rule for
 * pre-labels). The file is read and every image converted first; then everything is written in
 * one transaction, so an import is whole or not at all. The answer is the report.
 */

export const LABEL_FORMATS = ['coco', 'yolo', 'voc', 'labelstudio', 'cvat'] as const;
export type LabelFormat = (typeof LABEL_FORMATS)[number];

const READERS: Record<LabelFormat, (files: ImportFiles, report: ImportReport) => AsyncGenerator<ImportedImage>> = {
  coco: cocoImages,
  yolo: yoloImages,
  voc: vocImages,
  labelstudio: labelStudioImages,
  cvat: cvatImages,
};

type Json = Record<string, unknown>;
/** An asset's converted answer, waiting for the transaction: tools as JSON text (compact in memory). */
interface Ready {
  source: string;
  assetId: string;
  tools: string;
  classifications: Json[];
  brush: {
    tool: import('../../../schemas/category-schema.js').Tool;
    width: number;
    height: number;
    pixels: Uint8Array;
  }[];
}

/** Coordinates of a normalised (YOLO) image scaled to the asset's pixels. */
function scaled(image: ImportedImage, a: MatchedAsset): ImportedImage {
  const w = a.width as number;
  const h = a.height as number;
  const pts = (p: [number, number][]) => p.map(([x, y]): [number, number] => [x * w, y * h]);
  return {
    ...image,
    objects: image.objects.map((o) => {
      const s = o.shape;
      if (s.kind === 'bounding-box') {
        return {
          ...o,
          shape: {
            kind: s.kind,
            box: { x: s.box.x * w, y: s.box.y * h, width: s.box.width * w, height: s.box.height * h },
          },
        };
      }
      if (s.kind === 'segmentation') {
        const zones = s.zones.map((z) => ({ region: pts(z.region), holes: z.holes.map(pts) }));
        return { ...o, shape: { kind: s.kind, zones } };
      }
      return s.kind === 'polygon' ? { ...o, shape: { kind: s.kind, points: pts(s.points) } } : o;
    }),
  };
}

/** `<video>_frame_000012.jpg`, how dataset exports name a video's frames: the video's name and the frame. */
const FRAME = /^(.*)_frame_(\d+)(\.[^.]*)?$/;

/**
 * The asset of an image; an image named as a video's frame that matches no asset itself is
 * that frame of the video (its objects get the frame as `page`).
 */
function matchWithFrames(
  matcher: AssetMatcher,
  raw: ImportedImage,
): { asset: MatchedAsset | string; image: ImportedImage } {
  const asset = matcher.match(raw);
  const frame = raw.fileName ? FRAME.exec(raw.fileName) : null;
  if (typeof asset !== 'string' || !frame) return { asset, image: raw };
  const video = matcher.match({ ...raw, fileName: frame[1] });
  if (typeof video === 'string') return { asset, image: raw };
  const page = Number(frame[2]);
  return { asset: video, image: { ...raw, objects: raw.objects.map((o) => ({ ...o, page: o.page ?? page })) } };
}

async function convertAll(
  files: ImportFiles,
  format: LabelFormat,
  mapper: LabelMapper,
  matcher: AssetMatcher,
  report: ImportReport,
  schema: Parameters<typeof validateAnswer>[1],
) {
  // By asset: the frames of one video, found as images of their own, gather into its answer.
  const ready = new Map<string, Ready>();
  for await (const found of READERS[format](files, report)) {
    if (report.images > IMPORT_LIMITS.images) throw tooManyImages();
    if (found.objects.length > IMPORT_LIMITS.objectsPerImage) throw tooManyObjectsIn(found.source);
    const { asset, image: raw } = matchWithFrames(matcher, found);
    if (typeof asset === 'string') {
      report.skipImage(raw.source, asset);
      continue;
    }
    if (raw.normalised && (!asset.width || !asset.height)) {
      report.skipImage(
        raw.source,
        "the asset's size is unknown (metadata width and height), so normalised coordinates cannot be placed",
      );
      continue;
    }
    const image = raw.normalised ? scaled(raw, asset) : raw;
    const size = { width: asset.width ?? image.width, height: asset.height ?? image.height };
    const mapped = mapper.answer(image, size);
    if (!mapped.tools.length && !mapped.classifications.length && !mapped.brush.length) {
      // Nothing to write: an empty pre-label would only erase what the task holds.
      report.skipImage(raw.source, 'none of its labels could be taken');
      continue;
    }
    const checked = validateAnswer(
      { tools: mapped.tools, classifications: mapped.classifications, relations: [] },
      schema,
      { submit: false, frames: asset.frames },
    );
    if (checked.errors.length) {
      const first = checked.errors[0];
      report.skipImage(raw.source, `its labels do not fit the ontology: ${first?.field} ${first?.message}`);
      continue;
    }
    const brush = mapped.brush.map((b) => ({
      tool: b.tool,
      width: b.shape.width,
      height: b.shape.height,
      pixels: b.shape.pixels,
    }));
    if (report.objects > IMPORT_LIMITS.objects) throw tooManyObjects();
    const tools = mapped.tools.map((t) => JSON.stringify(t)).join(',');
    const seen = ready.get(asset.id);
    if (seen) {
      seen.tools = seen.tools && tools ? `${seen.tools},${tools}` : seen.tools || tools;
      seen.brush.push(...brush);
      continue;
    }
    ready.set(asset.id, {
      source: raw.source,
      assetId: asset.id,
      tools,
      classifications: mapped.classifications,
      brush,
    });
  }
  return [...ready.values()];
}

export async function importLabelFile(
  ctx: AppContext,
  p: Principal,
  projectId: string,
  format: LabelFormat,
  file: string,
) {
  const { row } = await loadProject(ctx.store.db, p, projectId, 'import');
  const info = projectInfo(row);
  const report = new ImportReport();
  const mapper = new LabelMapper(info.categorySchema, report);
  let files: ImportFiles | undefined;
  let ready: Ready[];
  try {
    files = await openImportFiles(file);
    const matcher = new AssetMatcher(await projectAssets(ctx.store.db, row.id));
    ready = await convertAll(files, format, mapper, matcher, report, info.categorySchema);
  } catch (err) {
    if (err instanceof ImportFileError) throw invalidField(err.field, err.message);
    throw err;
  } finally {
    files?.close();
  }
  const startId = startStage(info.stages)?.id;
  const brushes = new BrushWriter(ctx, row.id);
  try {
    await ctx.store.db.transaction().execute(async (trx) => {
      const now = new Date(ctx.clock.now()).toISOString();
      for (const part of chunked(ready, 500)) {
        const tasks = new Map(
          (
            await defaultTasksOf(
              trx,
              ctx.store.engine,
              row.id,
              part.map((r) => r.assetId),
            )
          ).map((t) => [t.asset_id, t]),
        );
        for (const r of part) {
          const task = tasks.get(r.assetId);
          if (!task) report.skipImage(r.source, 'the asset has no task');
          else if (task.stage_id !== startId)
            report.skipImage(r.source, `the task is in stage "${task.stage_id}", not in Start`);
          else {
            const brush = await brushes.write(r.brush);
            const answer = `{"tools":[${r.tools}],"classifications":${JSON.stringify(r.classifications)},"relations":[]}`;
            await writePreLabel(
              trx,
              task.id,
              answer,
              brush === undefined ? {} : { brush_data_url: brush },
              now,
              p.email,
            );
            report.tasks++;
          }
        }
      }
      if (!report.tasks) {
        const summary = report.toJSON();
        const why = summary.unmatchedCategories.length
          ? `; categories matching no tool: ${summary.unmatchedCategories.map((c) => c.name).join(', ')}`
          : summary.skippedImageList[0]
            ? `; first: ${summary.skippedImageList[0].source}: ${summary.skippedImageList[0].reason}`
            : '';
        throw new AppError('VALIDATION', `nothing of the file could be imported${why}`, [
          { field: 'file', message: `no image of the file matched a task in the Start stage${why}` },
        ]);
      }
      await audit(trx, ctx.clock, p, {
        operation: 'labels.import',
        targetType: 'project',
        targetId: row.id,
        projectId: row.id,
        fields: ['answer', 'format'],
      });
    });
  } catch (err) {
    await brushes.discard();
    throw err;
  }
  return report.toJSON();
}
