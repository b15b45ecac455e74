import type { Readable } from 'node:stream';
import { AppError, invalidField } from '../../errors.js';

/*
 * A submitted form as the services see it: fields and file parts in the order they arrived,
 * without HTTP. A file part's stream must be read (or destroyed) before the next part comes.
 * The HTTP layer adapts multipart bodies, url-encoded forms and JSON bodies to this.
 */

export type FormPart =
  { kind: 'field'; name: string; value: string } | { kind: 'file'; name: string; filename: string; stream: Readable };

export type FormSource = AsyncIterable<FormPart>;

export const payloadTooLarge = (field: string, limit: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `${field}: is larger than the limit of ${limit} bytes`, [
    { field, message: `must be at most ${limit} bytes` },
  ]);

/** Reads a stream into memory, refusing it past `max` bytes (413 naming `field`). */
export async function readBounded(stream: Readable, max: number, field: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > max) {
      stream.destroy();
      throw payloadTooLarge(field, max);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** A file part the operation does not take: its bytes are not read, the request is refused. */
export function unexpectedFile(part: { name: string; stream: Readable }, expected: string): AppError {
  part.stream.destroy();
  return invalidField(part.name, `is not a file field of this operation; send the file as "${expected}"`);
}

/** Collects the fields of a form that carries at most one file, handed to `onFile` as it arrives. */
export async function readForm(
  form: FormSource,
  fileField: string,
  onFile: (part: { filename: string; stream: Readable }) => Promise<void>,
): Promise<Map<string, string>> {
  const fields = new Map<string, string>();
  let sawFile = false;
  for await (const part of form) {
    if (part.kind === 'field') {
      fields.set(part.name, part.value);
      continue;
    }
    if (part.name !== fileField) throw unexpectedFile(part, fileField);
    if (sawFile) {
      part.stream.destroy();
      throw invalidField(fileField, 'only one file may be sent');
    }
    sawFile = true;
    await onFile(part);
  }
  return fields;
}
