import type { ConsoleServer } from './console-server.js';

export type Json = Record<string, unknown>;

/**
 * The API called as a script would, with an API key (the bootstrap owner's unless told): test
 * setup and checks beside what the browser does. Answers the status and the envelope's data.
 */
export async function callApi(
  server: ConsoleServer,
  method: string,
  path: string,
  body?: unknown,
  key = server.ownerKey,
): Promise<{ status: number; data: Json; body: unknown }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { apikey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data: Json };
  return { status: res.status, data: json.data, body: json };
}
