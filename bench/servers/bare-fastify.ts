/**
 * The baseline: a bare Fastify 5 server that answers one fixed JSON document on the same route
 * shape as Annotary (GET /v2/project/:projectId), with no hooks, no database, no logging. The
 * document is read once from BENCH_DOCUMENT (a JSON file) and serialized on every request, as
 * Annotary's own JSON.stringify serializer does. Run by bench/project-get.ts, not by hand:
 *
 *   PORT=3000 BENCH_DOCUMENT=doc.json node --import tsx bench/servers/bare-fastify.ts
 */
import fs from 'node:fs';
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3000);
const file = process.env.BENCH_DOCUMENT;
const document: unknown = file ? JSON.parse(fs.readFileSync(file, 'utf8')) : { status: 'success', data: {} };

const app = Fastify();
app.get('/healthz', async () => ({ status: 'success' }));
app.get('/v2/project/:projectId', async () => document);

// Exit cleanly on SIGTERM so `node --cpu-prof` writes its profile.
process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

await app.listen({ port, host: '127.0.0.1' });
