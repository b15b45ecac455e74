import type { operations } from '../../../src/client/schema';
import { client } from './client';

type Answer = operations['importLabelFile']['responses'][200]['content']['application/json'];
export type LabelImportReport = Answer['data']['report'];
export type LabelFormat = operations['importLabelFile']['parameters']['query']['format'];

/** The formats the server reads, as a person names them. */
export const LABEL_FORMAT_NAMES: Record<LabelFormat, string> = {
  coco: 'COCO instances (JSON, or a zip)',
  yolo: 'YOLO (a zip with data.yaml)',
  voc: 'Pascal VOC (XML, or a zip)',
  labelstudio: 'Label Studio (JSON export)',
  cvat: 'CVAT for images or video 1.1 (XML)',
};

/** Sends a label file as it is (the server spools it and reads it as a stream). */
export async function importLabelFile(projectId: string, format: LabelFormat, file: File): Promise<LabelImportReport> {
  const data = await client.sendJson<{ report: LabelImportReport }>(
    'POST',
    `/v2/project/${encodeURIComponent(projectId)}/import/labels?format=${encodeURIComponent(format)}`,
    { body: file, headers: { 'content-type': 'application/octet-stream' } },
  );
  return data.report;
}
