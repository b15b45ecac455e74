import dicomParser from 'dicom-parser';
import { NrrdError, parseNrrdHeader } from '../../shared/nrrd.js';

/*
 * A volume's size from its file's first bytes: a DICOM file's Rows, Columns and Number of Frames
 * (read up to the pixel data, never into it) and its series, an NRRD's `sizes`. `width` x `height` is a slice,
 * `pageTotal` the slices (a series' count comes from its `dataset`, not from one file).
 */

export interface VolumeFacts {
  width: number;
  height: number;
  pageTotal: number;
}

export type VolumeRead = { facts: VolumeFacts } | { problem: string };

/** A DICOM file's facts and the series it says it belongs to (SeriesInstanceUID, when it has one). */
export type DicomRead = { facts: VolumeFacts; series: string | undefined } | { problem: string };

const PIXEL_DATA = 'x7fe00010';
const whole = (v: number | undefined): v is number => v !== undefined && Number.isInteger(v) && v > 0;

/**
 * A DICOM file's slice size and frame count from its head (`whole` when the head is the whole
 * file: then a file without pixel data is said to be one).
 */
export function readDicomHead(bytes: Uint8Array, wholeFile: boolean): DicomRead {
  let ds: dicomParser.DataSet;
  try {
    ds = dicomParser.parseDicom(bytes, { untilTag: PIXEL_DATA });
  } catch (err) {
    // The parser throws strings as well as errors; its words name the part it could not read.
    const said = typeof err === 'string' ? err : err instanceof Error ? err.message : '';
    if (/DICM/.test(said)) return { problem: 'the file is not a DICOM file (no DICM mark after its preamble)' };
    return wholeFile
      ? { problem: 'the DICOM file is damaged: its data elements cannot be read' }
      : { problem: `no DICOM pixel data description in the file's first ${Math.round(bytes.length / 1024)} KiB` };
  }
  const rows = ds.uint16('x00280010');
  const columns = ds.uint16('x00280011');
  const pixels = ds.elements[PIXEL_DATA] !== undefined;
  if (!whole(rows) || !whole(columns)) {
    return {
      problem: pixels || !wholeFile ? 'the DICOM file has no Rows and Columns' : 'the DICOM file has no pixel data',
    };
  }
  if (!pixels && wholeFile) return { problem: 'the DICOM file has no pixel data' };
  const frames = Number(ds.string('x00280008') ?? '1');
  const series = ds.string('x0020000e')?.replace(/\0/g, '').trim() || undefined;
  return { facts: { width: columns, height: rows, pageTotal: whole(frames) ? frames : 1 }, series };
}

/** An NRRD volume's size from its header: 2 or 3 axes (a single slice has one page). */
export function readNrrdHead(bytes: Uint8Array): VolumeRead {
  try {
    const header = parseNrrdHeader(bytes);
    const [width, height, slices = 1] = header.sizes;
    if (header.sizes.length > 3 || !whole(width) || !whole(height)) {
      return { problem: `the NRRD file has ${header.sizes.length} axes; a volume has 2 or 3` };
    }
    return { facts: { width, height, pageTotal: slices } };
  } catch (err) {
    if (err instanceof NrrdError) return { problem: `the file ${err.message}` };
    throw err;
  }
}
