/** The dataset formats of `GET /export?format=`, beside json and ndjson. */
export const DATASET_FORMATS = ['coco', 'yolo', 'voc', 'masks', 'cvat', 'kitti'] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

export function isDatasetFormat(format: string): format is DatasetFormat {
  return (DATASET_FORMATS as readonly string[]).includes(format);
}
