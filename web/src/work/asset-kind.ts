import { imageTools, textTools, type Ontology } from '../editor/core/ontology';

/**
 * What the editor does with an asset: draws on an image, tags a text, marks a PDF, labels a point
 * cloud's frames (every asset of a `pct` project), or asks questions only.
 */
export type AssetKind =
  | { kind: 'image' }
  | { kind: 'text' }
  | { kind: 'pdf' }
  | { kind: 'video' }
  | { kind: 'pages' }
  | { kind: 'volume' }
  | { kind: 'pointcloud' }
  | { kind: 'unsupported'; what: string };

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|avif|svg)$/i;
const TEXT = /\.(txt|text|md|csv|json)$/i;
const PDF = /\.pdf$/i;
const VIDEO = /\.(mp4|mov|m4v|webm|mkv)$/i;
const TIFF = /\.tiff?$/i;
/** A DICOM file or an NRRD volume (a `.seg.nrrd` is a voxel layer, not a volume to label). */
const VOLUME = /\.(dcm|dicom)$|(?<!\.seg)\.nrrd$/i;
const OTHER: [RegExp, string][] = [
  [/\.avi$/i, 'a video'],
  [/\.(pcd|ply|las|laz|bin)$/i, 'a point cloud'],
  [/\.(nii|nrrd|mha)$/i, 'a medical volume'],
  [/(\.nii\.gz)$/i, 'a medical volume'],
  [/\.html?$/i, 'a web page'],
];

/** True when the URL's file name is an image's: the editor's early start loads no other file. */
export function namesAnImage(url: string | null | undefined): boolean {
  try {
    return IMAGE.test(new URL(url ?? '', 'http://relative.invalid').pathname);
  } catch {
    return false;
  }
}

/** True when the URL's file name is a video's (the early start opens its first bytes). */
export function namesAVideo(url: string | null | undefined): boolean {
  try {
    return VIDEO.test(new URL(url ?? '', 'http://relative.invalid').pathname);
  } catch {
    return false;
  }
}

/**
 * The asset's kind from its URL's file name (signed URLs keep it before the query string), and
 * from the ontology when the name says nothing: an ontology of NER tools only means text. An
 * asset made of several images (`dataset`) and a TIFF (one page or many) are shown page by page.
 */
export function assetKind(
  url: string | null | undefined,
  ontology: Ontology,
  projectType?: string,
  dataset?: readonly string[],
): AssetKind {
  if (projectType === 'pct') return { kind: 'pointcloud' };
  const pathOf = (address: string) => {
    try {
      return new URL(address, 'http://relative.invalid').pathname;
    } catch {
      return address; // not a URL: read the text as it is
    }
  };
  // A dataset of DICOM files is a series: one volume.
  if (dataset?.length) return VOLUME.test(pathOf(dataset[0] ?? '')) ? { kind: 'volume' } : { kind: 'pages' };
  const name = pathOf(url ?? '');
  if (IMAGE.test(name)) return { kind: 'image' };
  if (TEXT.test(name)) return { kind: 'text' };
  if (PDF.test(name)) return { kind: 'pdf' };
  if (VIDEO.test(name)) return { kind: 'video' };
  if (TIFF.test(name)) return { kind: 'pages' };
  if (VOLUME.test(name)) return { kind: 'volume' };
  for (const [pattern, what] of OTHER) if (pattern.test(name)) return { kind: 'unsupported', what };
  if (textTools(ontology).length > 0 && imageTools(ontology).length === 0) return { kind: 'text' };
  return { kind: 'image' };
}
