import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { invalidField } from '../../errors.js';
import { ProjectIdParams } from '../../schemas/asset.js';
import { StringEnum } from '../../schemas/common.js';
import { Success } from '../../schemas/envelope.js';
import { LabelImportReport } from '../../schemas/prelabel.js';
import { importLabelFile, LABEL_FORMATS } from '../../services/assets/label-import/label-import.service.js';
import { payloadTooLarge } from '../../services/files/upload-form.js';
import { principalOf } from '../plugins/auth.js';
import { ok } from '../reply.js';

/** The request's body stream, handed over by the route's parser instead of a parsed body. */
const bodies = new WeakMap<FastifyRequest, Readable>();

/** Copies the body to a private temporary file, refusing it past `limit` bytes (413 naming `file`). */
async function spoolBody(body: Readable, limit: number): Promise<string> {
  const file = path.join(os.tmpdir(), `annotary-labels-${randomBytes(8).toString('hex')}.part`);
  let size = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > limit ? payloadTooLarge('file', limit) : null, chunk);
    },
  });
  try {
    await pipeline(body, bounded, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    return file;
  } catch (err) {
    await fs.promises.rm(file, { force: true });
    throw err;
  }
}

/**
 * POST /project/{id}/import/labels?format=coco|yolo|voc|labelstudio|cvat (our extension of the
 * contract's POST /import/labels): the body is the label file itself (JSON, XML, or a zip of a
 * dataset folder), any content type. Registered in a context of its own for its body parser.
 */
export const labelImportRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    bodies.set(req, payload as Readable);
    done(null, undefined);
  });
  app.post(
    '/project/:projectId/import/labels',
    {
      schema: {
        tags: ['tasks'],
        operationId: 'importLabelFile',
        summary: "Import another tool's labels as pre-labels",
        description:
          'The body is a COCO or Label Studio JSON file, a CVAT or Pascal VOC XML file, or a zip of a dataset folder (YOLO, VOC, COCO, CVAT). Objects become pre-labels of the matching tasks still in the Start stage, all in one transaction; the answer reports what was taken and what was skipped. Needs the import permission (Manager, Lead).',
        params: ProjectIdParams,
        querystring: Type.Object({ format: StringEnum(LABEL_FORMATS) }),
        response: { 200: Success(Type.Object({ report: LabelImportReport })) },
      },
    },
    async (req) => {
      const body = bodies.get(req);
      if (!body) throw invalidField('file', 'the request has no body: send the label file as the body');
      const file = await spoolBody(body, ctx.config.uploadLimit);
      try {
        return ok({
          report: await importLabelFile(ctx, principalOf(req), req.params.projectId, req.query.format, file),
        });
      } finally {
        await fs.promises.rm(file, { force: true });
      }
    },
  );
};
