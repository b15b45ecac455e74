import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ImportAssetsQuery, ImportAssetsRequest, ProjectIdParams } from '../../schemas/asset.js';
import { type CreatedAsset, importAssetStream } from '../../services/assets/asset-import.service.js';
import type { AssetInput } from '../../services/assets/asset.service.js';
import { importInlineAssets } from '../../services/assets/inline-assets.service.js';
import { idsFromQuery } from '../../schemas/query-list.js';
import { ListingSpool } from '../../adapters/storage/listing-spool.js';
import { ImportBodyReader, LateUploadLocal } from '../import-body.js';
import { linkBase } from '../link-base.js';
import { principalOf } from '../plugins/auth.js';
import { created } from '../reply.js';

/** The request's body stream, handed over by the route's JSON parser instead of a parsed body. */
const bodyStreams = new WeakMap<FastifyRequest, Readable>();

/** One answer entry as the response schema writes it. */
const entry = (a: CreatedAsset) =>
  `{"_id":${JSON.stringify(a._id)},"externalId":${JSON.stringify(a.externalId)},"taskId":${JSON.stringify(a.taskId)}}`;

/** The 201 answer, written from the entries kept as text (in a temporary file past 1 MiB). */
async function* answer(count: number, entries: ListingSpool): AsyncGenerator<string | Buffer> {
  yield `{"status":"success","data":{"assetsCreated":${count},"assets":[`;
  yield* entries.chunks();
  yield ']}}';
}

async function* prepend<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncGenerator<T> {
  if (first.done) return;
  yield first.value;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * POST /project/{id}/cloud, with its body read as a stream (src/http/import-body.ts): the
 * assets are checked and written a chunk at a time as they arrive, in one transaction, and the
 * answer is kept as text and streamed out, so a 100,000-asset import never holds its request
 * or its rows whole. Registered in a context of its own for its JSON parser.
 */
export const assetImportRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (req, payload, done) => {
    bodyStreams.set(req, payload as Readable);
    done(null, undefined);
  });
  app.post(
    '/project/:projectId/cloud',
    {
      schema: { tags: ['assets'], params: ProjectIdParams, querystring: ImportAssetsQuery, body: ImportAssetsRequest },
      // The body schema documents the route and checks each asset as it streams in (ImportBodyReader).
      validatorCompiler: (route) =>
        route.httpPart === 'body' ? () => ({ value: undefined }) : TypeBoxValidatorCompiler(route),
    },
    async (req, reply) => {
      // No stream: no body, or one of another type parsed by its own parser (not an object).
      const stream = bodyStreams.get(req);
      const length = stream ? Number(req.headers['content-length']) : Number.NaN;
      const body = new ImportBodyReader(
        stream ?? Readable.from([]),
        ctx.config.bodyLimit,
        Number.isFinite(length) ? length : undefined,
      );
      const p = principalOf(req);
      const projectId = req.params.projectId;
      try {
        const batches = req.query.batches === undefined ? undefined : idsFromQuery(req.query.batches, 'batches');
        const items = body.assets();
        const first = await items.next();
        if (body.inlineFromStart) {
          const assets: AssetInput[] = [];
          for await (const a of prepend(first, items)) assets.push(a);
          return created(
            reply,
            await importInlineAssets(
              ctx,
              p,
              projectId,
              { assets, priority: body.priority, batches },
              linkBase(ctx, req),
            ),
          );
        }
        const entries = new ListingSpool();
        const source = {
          assets: prepend(first, items),
          priority: () => ({ value: body.priority, settled: body.prioritySettled }),
          batches,
        };
        let count: number;
        try {
          count = await importAssetStream(
            ctx,
            p,
            projectId,
            source,
            (part) => entries.addJson(part.map(entry).join(',')),
            linkBase(ctx, req),
          );
        } catch (err) {
          await entries.discard();
          throw err;
        }
        return reply
          .status(201)
          .type('application/json; charset=utf-8')
          .send(Readable.from(answer(count, entries)));
      } catch (err) {
        // A refused body answers before anything else, as when it was parsed and checked first.
        try {
          await body.drain();
        } catch (refused) {
          if (!(refused instanceof LateUploadLocal)) throw refused;
          // uploadLocal: true after the assets (nothing was kept of the link import): as content.
          const { assets, priority } = await body.wholeBody();
          const batches = req.query.batches === undefined ? undefined : idsFromQuery(req.query.batches, 'batches');
          const input = { assets, priority, batches };
          return created(reply, await importInlineAssets(ctx, p, projectId, input, linkBase(ctx, req)));
        }
        throw err;
      } finally {
        await body.discard();
      }
    },
  );
};
