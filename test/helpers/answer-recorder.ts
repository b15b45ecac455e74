import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** One answer of the app: what the handler gave and what went on the wire. */
export interface RecordedAnswer {
  method: string;
  /** The route pattern, e.g. `/v2/project/:projectId`. */
  route: string;
  status: number;
  contentType: string;
  /** The object handed to the serializer; undefined when the handler sent a string, buffer or stream. */
  given: unknown;
  /** The serialized body, when it was a string. */
  sent: string | undefined;
}

const GIVEN = Symbol('answer given to the serializer');
type Marked = FastifyRequest & { [GIVEN]?: string };

/**
 * Records every answer of an app, the object before serialisation and the text after, so a
 * test can check both the document (the body validates) and the serializer (it drops nothing).
 * Install before the routes are registered (makeTestApp's `beforeRoutes`).
 */
export function recordAnswers(app: FastifyInstance): RecordedAnswer[] {
  const answers: RecordedAnswer[] = [];
  app.addHook('preSerialization', async (req: Marked, _reply, payload) => {
    // A deep copy: the serializer must be compared with what the handler gave at that moment.
    req[GIVEN] = JSON.stringify(payload);
    return payload;
  });
  app.addHook('onSend', async (req: Marked, reply, payload) => {
    const route = req.routeOptions.url;
    if (route === undefined) return payload;
    const given = req[GIVEN];
    const contentType = String(reply.getHeader('content-type') ?? '');
    const answer: RecordedAnswer = {
      method: req.method,
      route,
      status: reply.statusCode,
      contentType,
      given: given === undefined ? undefined : JSON.parse(given),
      sent: typeof payload === 'string' ? payload : undefined,
    };
    answers.push(answer);
    // A streamed JSON answer (a storage listing) is read as it goes out.
    if (payload instanceof Readable && contentType.startsWith('application/json')) {
      const tee = new PassThrough();
      let text = '';
      tee.on('data', (chunk: Buffer | string) => (text += chunk.toString()));
      tee.on('end', () => (answer.sent = text));
      return payload.pipe(tee);
    }
    return payload;
  });
  return answers;
}
