import fs from 'node:fs';
import { type ApiOptions, connect } from './connect.js';
import { UsageError } from './exit.js';
import { asRecord, printJson } from './output.js';

interface ImportLabelsOptions extends ApiOptions {
  format: 'coco' | 'yolo' | 'voc' | 'labelstudio' | 'cvat';
}

/** `annotary import-labels <project> <file> --format coco`: sends the file, prints the report. */
export async function importLabels(projectId: string, file: string, o: ImportLabelsOptions): Promise<void> {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`no file ${file}`);
  const client = connect(o);
  const body = await fs.promises.readFile(file);
  const report = asRecord(asRecord(await client.files.importLabels(projectId, o.format, body)).report);
  if (o.json) return printJson(report);
  const lines = [
    `${String(report.tasks)} task(s) pre-labelled with ${String(report.objects)} object(s) from ${String(report.images)} image(s)`,
  ];
  if (Number(report.clipped)) lines.push(`${String(report.clipped)} shape(s) clipped to their image`);
  for (const c of (report.unmatchedCategories as { name: string; objects: number }[] | undefined) ?? []) {
    lines.push(`category "${c.name}" matches no tool: ${c.objects} object(s) left out`);
  }
  for (const s of (report.skipped as { reason: string; count: number }[] | undefined) ?? []) {
    lines.push(`left out: ${s.count} ${s.reason}`);
  }
  const images = (report.skippedImageList as { source: string; reason: string }[] | undefined) ?? [];
  if (Number(report.skippedImages)) lines.push(`${String(report.skippedImages)} image(s) skipped:`);
  for (const s of images) lines.push(`  ${s.source}: ${s.reason}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
