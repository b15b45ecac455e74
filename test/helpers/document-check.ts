import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { RecordedAnswer } from './answer-recorder.js';

type Json = Record<string, unknown>;
interface Response {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}
export interface Doc {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, Response> }>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Response> };
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** `/v2/project/:projectId` -> `/v2/project/{projectId}` (the document's path template). */
export const docPath = (route: string) => route.replace(/:([A-Za-z]+)/g, '{$1}');

/**
 * Checks recorded answers against the served document with a real JSON Schema (2020-12)
 * validator: each answer's status is documented for its operation, and its body validates
 * against the documented schema. Answers the problems found, one line each.
 */
export function checkAnswers(doc: Doc, answers: RecordedAnswer[]): string[] {
  const ajv = new Ajv2020.default({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema(doc as unknown as Json, 'doc');
  const problems: string[] = [];
  for (const a of answers) {
    if (a.route === '/v2/openapi.json') continue;
    const where = `${a.method} ${a.route} ${a.status}`;
    const path = docPath(a.route);
    const op = doc.paths[path]?.[a.method.toLowerCase()];
    if (!op) {
      problems.push(`${where}: the document has no such operation`);
      continue;
    }
    let response = op.responses[String(a.status)];
    let at = pointer('paths', path, a.method.toLowerCase(), 'responses', String(a.status));
    if (response?.$ref) {
      const name = response.$ref.split('/').pop() as string;
      response = doc.components.responses[name];
      at = pointer('components', 'responses', name);
    }
    if (!response) {
      problems.push(`${where}: the status is not documented`);
      continue;
    }
    const type = a.contentType.split(';')[0]?.trim() ?? '';
    if (!response.content?.[type]?.schema) {
      problems.push(`${where}: no ${type} schema documented`);
      continue;
    }
    if (type !== 'application/json') continue;
    const validate = ajv.getSchema(`doc#/${at}/content/${pointer('application/json')}/schema`);
    if (!validate) throw new Error(`cannot compile ${at}`);
    if (!validate(JSON.parse(a.sent ?? 'null'))) {
      problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${(a.sent ?? '').slice(0, 300)}`);
    }
  }
  return problems;
}

/** The schema examples of the components, each validated against its own component. */
export function checkExamples(doc: Doc): string[] {
  const ajv = new Ajv2020.default({ strict: false });
  addFormats.default(ajv);
  ajv.addSchema(doc as unknown as Json, 'doc');
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const validate = ajv.getSchema(`doc#/components/schemas/${name}`);
    for (const example of (schema.examples as unknown[] | undefined) ?? []) {
      if (validate && !validate(example)) problems.push(`example of ${name}: ${ajv.errorsText(validate.errors)}`);
    }
  }
  return problems;
}
