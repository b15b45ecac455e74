import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../config.js';
import { RATE_WINDOW_MS } from '../plugins/rate-limit.js';
import { ERROR_RESPONSES, errorResponsesOf, RATE_LIMIT_HEADERS, type OpenApiOperation } from './error-responses.js';
import { UPLOAD_BODIES } from './upload-bodies.js';

const TAGS = [
  ['projects', 'Projects: their ontology (categorySchema), workflow (stages) and settings.'],
  ['assets', 'Assets imported from URLs or storages, and the attachments added to them.'],
  ['batches', 'Named groups of assets within a project.'],
  ['tasks', 'The tasks assets become: reading, annotating, reviewing and moving them between stages.'],
  ['workflow', 'The running workflow: stage status and warnings, webhook re-runs and the delivery log.'],
  ['plugins', 'Model plugins of Plugin stages and the call-backs a plugin answers through.'],
  ['issues', 'Issues raised on tasks, their comments and resolution.'],
  ['files', 'Upload and read URLs, instructions files and chat assets.'],
  ['storages', 'Cloud storages (AWS, S3-compatible, GCP, Azure) of the organization and the files in them.'],
  ['members', 'Members and invitations of the organization, and roles on projects.'],
  ['exports', 'Project exports and their key-less downloads.'],
  ['metrics', 'Overview metrics of a project.'],
  ['session', 'Sign-in for people: the console session cookie, one-time password and invite links.'],
  ['quality', 'Benchmark tasks and their reference answers.'],
  ['audit', 'The audit log of the organization: every change, who made it, from where.'],
] as const;

const DESCRIPTION = [
  'Annotation platform REST API v2: projects, workflows, tasks, assets, batches, storages, issues,',
  'plugins and the outbound webhook stage.',
  '',
  'Every operation needs the `apikey` header (a key from `annotary keys create`), except the signed',
  `export downloads. Each key may send a plan-dependent number of requests per ${RATE_WINDOW_MS / 1000} s`,
  '(standard 100, professional 500); every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`',
  'and `X-RateLimit-Reset`, and a 429 adds `Retry-After`. Retry 429 and 5xx with exponential backoff.',
  '',
  'Success bodies are `{status: "success", data}`; errors are `{status: "fail" | "error", message,',
  'errors?: [{field, message}]}`.',
].join('\n');

type Doc = Record<string, unknown> & {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, unknown>;
};

/** Adds what TypeBox schemas cannot say: tags, shared error answers, headers, upload bodies, webhooks. */
function finish(doc: Doc): Doc {
  for (const operations of Object.values(doc.paths)) {
    for (const op of Object.values(operations)) {
      const upload = op.operationId ? UPLOAD_BODIES[op.operationId] : undefined;
      if (upload) op.requestBody = upload;
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (status.startsWith('2') && !isPublic) response.headers = { ...RATE_LIMIT_HEADERS, ...response.headers };
      }
      op.responses = { ...op.responses, ...errorResponsesOf(op, isPublic) };
    }
  }
  doc.components = { ...doc.components, ...ERROR_RESPONSES };
  doc.webhooks = {
    taskEnteredWebhookStage: {
      post: {
        operationId: 'taskEnteredWebhookStage',
        summary: 'Sent to the URL of a Webhook stage each time a task enters it',
        description:
          'Method from the stage (`POST` or `PUT`). `authType: secret` adds `X-Hub-Signature` (hex HMAC-SHA1 of ' +
          'the raw body); `bearer_token` adds `Authorization: Bearer <token>`. Only a 200 answer passes the task on.',
        tags: ['workflow'],
        security: [],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookPayload' } } },
        },
        responses: { '200': { description: 'Received; the task moves to the next stage.' } },
      },
    },
  };
  return doc;
}

export function swaggerOptions(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Annotary REST API',
        version: '2.0.0',
        description: DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // The server is the host and every path carries /v2: the typed client and the CLI name
      // operations by their full path (/v2/listProjects), as curl users write them.
      // Without ANNOTARY_PUBLIC_URL, `/`: the address the document was read from (OpenAPI
      // resolves a relative server URL against it), as every other link does.
      servers: [
        {
          url: config.publicUrlConfigured ? config.publicUrl : '/',
          description: `this server: the ${config.deployment} deployment`,
        },
      ],
      tags: TAGS.map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          apikey: { type: 'apiKey', in: 'header', name: 'apikey' },
          // The console's session (POST /v2/session); its writes also need the x-csrf-token header.
          session: { type: 'apiKey', in: 'cookie', name: 'annotary_session' },
        },
      },
      security: [{ apikey: [] }, { session: [] }],
    },
    // Named schemas keep their names in the document (the default numbers them `def-N`).
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (document) => ('openapiObject' in document ? finish(document.openapiObject as Doc) : {}),
  };
}
