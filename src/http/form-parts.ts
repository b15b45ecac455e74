import { type Readable, Transform } from 'node:stream';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { payloadTooLarge, type FormSource } from '../services/files/upload-form.js';

/** busboy's default largest text field (1 MiB); a longer value arrives truncated, so it is refused. */
const FIELD_SIZE_LIMIT = 1024 * 1024;

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `a=1&b=2` as a plain record without a prototype: no key can reach Object.prototype. */
export function parseUrlEncoded(body: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body)) out[name] = value;
  return out;
}

/**
 * The request's form as the services read it: multipart parts streamed one by one (a file
 * part past the upload limit fails its stream with a 413 naming the field), or the fields of
 * a url-encoded or JSON body.
 */
export async function* formParts(req: FastifyRequest, uploadLimit: number): FormSource {
  if (req.isMultipart()) {
    try {
      for await (const part of req.parts()) {
        if (part.type === 'field') {
          if (part.valueTruncated) throw payloadTooLarge(part.fieldname, FIELD_SIZE_LIMIT);
          yield { kind: 'field', name: part.fieldname, value: asText(part.value) };
          continue;
        }
        const stream = checkedFile(part.file, part.fieldname, uploadLimit);
        yield { kind: 'file', name: part.fieldname, filename: part.filename ?? '', stream };
        // A consumer that skipped the part: drain it so the parser reaches the next one.
        if (!stream.readableEnded && !stream.destroyed) stream.resume();
      }
    } catch (err) {
      // The plugin's own report of the same limit, when it comes first.
      const e = err as { code?: unknown; part?: { fieldname?: unknown } };
      if (e.code !== 'FST_REQ_FILE_TOO_LARGE') throw err;
      throw payloadTooLarge(typeof e.part?.fieldname === 'string' ? e.part.fieldname : 'file', uploadLimit);
    }
    return;
  }
  const body: unknown = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) yield { kind: 'field', name, value: asText(value) };
  }
}

/**
 * busboy stops a file at the limit and ends its stream quietly (`truncated`); this copy fails
 * instead, so whoever reads it drops what it wrote. Destroying the copy stops the part.
 */
function checkedFile(file: MultipartFile['file'], field: string, limit: number): Readable {
  const checked = new Transform({
    transform: (chunk: Buffer, _enc, done) => done(null, chunk),
    flush: (done) => done(file.truncated ? payloadTooLarge(field, limit) : null),
  });
  // The consumer may not be listening yet; the error stays on the stream for its pipeline.
  checked.on('error', () => undefined);
  file.on('error', (err) => checked.destroy(err));
  checked.on('close', () => {
    if (!file.readableEnded) file.destroy();
  });
  file.pipe(checked);
  return checked;
}
