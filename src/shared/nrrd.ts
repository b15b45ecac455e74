/*
 * NRRD (http://teem.sourceforge.net/nrrd/format.html): a text header, a blank line, then the
 * data. Read by the editor (volumes and the voxel brush's `.seg.nrrd`) and by the server (the
 * check of a `medicalBrushDataUrl`, consensus scores). Pure functions without imports: the
 * console and the server both compile this file; decompression is the caller's (gzip).
 */

/** The sample types NRRD names, by their usual spellings, with their size in bytes. */
const TYPES: Record<string, { name: NrrdType; bytes: number }> = {};
export type NrrdType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float' | 'double';
const SPELLINGS: [NrrdType, number, string[]][] = [
  ['int8', 1, ['signed char', 'int8', 'int8_t']],
  ['uint8', 1, ['uchar', 'unsigned char', 'uint8', 'uint8_t']],
  ['int16', 2, ['short', 'short int', 'signed short', 'signed short int', 'int16', 'int16_t']],
  ['uint16', 2, ['ushort', 'unsigned short', 'unsigned short int', 'uint16', 'uint16_t']],
  ['int32', 4, ['int', 'signed int', 'int32', 'int32_t']],
  ['uint32', 4, ['uint', 'unsigned int', 'uint32', 'uint32_t']],
  ['float', 4, ['float']],
  ['double', 8, ['double']],
];
for (const [name, bytes, spellings] of SPELLINGS) for (const s of spellings) TYPES[s] = { name, bytes };

export interface NrrdHeader {
  type: NrrdType;
  bytesPerSample: number;
  /** Sizes per axis, fastest first (x, y, z for a volume). */
  sizes: number[];
  encoding: 'raw' | 'gzip';
  endian: 'little' | 'big';
  /** Voxel spacing per axis, when the header says it (`spacings` or `space directions`). */
  spacings: (number | undefined)[];
  /** Where the data starts in the file. */
  dataOffset: number;
  /** Key/value pairs (`key:=value`) of the header. */
  keys: Record<string, string>;
}

export class NrrdError extends Error {}

/** Largest header read: a longer one is not an NRRD we take. */
export const MAX_NRRD_HEADER = 64 * 1024;

/** The header of an NRRD file's first bytes, or a NrrdError saying in words what is wrong. */
export function parseNrrdHeader(bytes: Uint8Array): NrrdHeader {
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (!/^NRRD000\d$/.test(magic)) throw new NrrdError('is not an NRRD file (no NRRD000x magic line)');
  let end = -1;
  const limit = Math.min(bytes.length, MAX_NRRD_HEADER);
  for (let i = 0; i + 1 < limit; i++) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) {
      end = i + 2;
      break;
    }
    if (bytes[i] === 10 && bytes[i + 1] === 13 && bytes[i + 2] === 10) {
      end = i + 3;
      break;
    }
  }
  if (end < 0) throw new NrrdError('has no end of header (a blank line) in its first bytes');
  let text = '';
  for (let i = 0; i < end; i++) text += String.fromCharCode(bytes[i]!);
  const fields: Record<string, string> = {};
  const keys: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/).slice(1)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const kv = line.indexOf(':=');
    if (kv > 0) {
      keys[line.slice(0, kv)] = line.slice(kv + 2);
      continue;
    }
    const colon = line.indexOf(': ');
    if (colon > 0) fields[line.slice(0, colon).toLowerCase()] = line.slice(colon + 2).trim();
  }
  if (fields['data file'] ?? fields.datafile)
    throw new NrrdError('names a detached data file; only attached data is read');
  const type = TYPES[(fields.type ?? '').toLowerCase()];
  if (!type) throw new NrrdError(`has a sample type this reader does not know: "${fields.type ?? ''}"`);
  const dimension = Number(fields.dimension);
  const sizes = (fields.sizes ?? '').split(/\s+/).filter(Boolean).map(Number);
  if (!Number.isInteger(dimension) || dimension < 1 || sizes.length !== dimension) {
    throw new NrrdError('has no "dimension" and "sizes" that agree');
  }
  if (sizes.some((s) => !Number.isInteger(s) || s < 1))
    throw new NrrdError('has a size that is not a positive whole number');
  const encoding = (fields.encoding ?? '').toLowerCase();
  const enc = encoding === 'gz' || encoding === 'gzip' ? 'gzip' : encoding === 'raw' ? 'raw' : undefined;
  if (!enc) throw new NrrdError(`has the encoding "${fields.encoding ?? ''}"; raw and gzip are read`);
  const endian = (fields.endian ?? 'little').toLowerCase() === 'big' ? 'big' : 'little';
  return {
    type: type.name,
    bytesPerSample: type.bytes,
    sizes,
    encoding: enc,
    endian,
    spacings: spacingsOf(fields, dimension),
    dataOffset: end,
    keys,
  };
}

function spacingsOf(fields: Record<string, string>, dimension: number): (number | undefined)[] {
  if (fields.spacings)
    return fields.spacings.split(/\s+/).map((s) => (Number.isFinite(Number(s)) ? Number(s) : undefined));
  const dirs = fields['space directions'];
  if (!dirs) return Array.from({ length: dimension }, () => undefined);
  const vectors = dirs.match(/\([^)]*\)|none/g) ?? [];
  return vectors.map((v) => {
    if (v === 'none') return undefined;
    const n = v.slice(1, -1).split(',').map(Number);
    return Math.hypot(...n) || undefined;
  });
}

/** The samples of decoded (decompressed) data as numbers, in the file's byte order. */
export function nrrdSamples(header: NrrdHeader, data: Uint8Array): ArrayLike<number> {
  const count = header.sizes.reduce((a, b) => a * b, 1);
  const need = count * header.bytesPerSample;
  if (data.length < need) throw new NrrdError(`holds ${data.length} bytes of data; its sizes need ${need}`);
  const view = new DataView(data.buffer, data.byteOffset, need);
  const little = header.endian === 'little';
  if (header.type === 'uint8') return data.subarray(0, need);
  if (header.type === 'int8') return new Int8Array(data.buffer, data.byteOffset, count);
  const out = header.type === 'float' || header.type === 'double' ? new Float32Array(count) : new Int32Array(count);
  const read: (at: number) => number = {
    int16: (at: number) => view.getInt16(at, little),
    uint16: (at: number) => view.getUint16(at, little),
    int32: (at: number) => view.getInt32(at, little),
    uint32: (at: number) => view.getUint32(at, little),
    float: (at: number) => view.getFloat32(at, little),
    double: (at: number) => view.getFloat64(at, little),
  }[header.type];
  for (let i = 0; i < count; i++) out[i] = read(i * header.bytesPerSample);
  return out;
}

/**
 * The header of a segmentation volume of `sizes` (x, y, z), one unsigned byte (or short, for
 * class numbers above 255) per voxel holding the class number, gzip-encoded: what the editor
 * writes as a task's `.seg.nrrd`.
 */
export function segmentationHeader(
  sizes: readonly [number, number, number],
  spacings?: readonly number[],
  type: 'uint8' | 'uint16' = 'uint8',
): string {
  return (
    'NRRD0004\n' +
    '# a segmentation: each voxel holds its class number, 0 for none\n' +
    `type: ${type}\n` +
    'dimension: 3\n' +
    `sizes: ${sizes.join(' ')}\n` +
    (spacings ? `spacings: ${spacings.join(' ')}\n` : '') +
    'encoding: gzip\n' +
    'endian: little\n\n'
  );
}
