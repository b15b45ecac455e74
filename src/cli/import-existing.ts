import type { Annotary } from '../client/index.js';
import { asRecord } from './output.js';

/** Largest asset page, and the size of an externalId filter that keeps the request line short. */
const PAGE = 1000;
const FILTER_CHARS = 6000;

function externalIdsOf(data: unknown): string[] {
  const assets = asRecord(data).assets;
  return (Array.isArray(assets) ? assets : []).map((a) => String(asRecord(a).externalId));
}

/** Groups of ids whose encoded `filters` stays within FILTER_CHARS and one page. */
function probeGroups(ids: string[]): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const id of ids) {
    const cost = encodeURIComponent(JSON.stringify(id)).length + 3;
    if (group.length && (size + cost > FILTER_CHARS || group.length >= PAGE)) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(id);
    size += cost;
  }
  if (group.length) groups.push(group);
  return groups;
}

/**
 * Which of `candidates` the project already has. Whichever costs fewer requests: walking every
 * asset of the project (a page per 1000), or asking for the candidates in groups by externalId.
 * An empty project costs one request.
 */
export async function existingExternalIds(
  client: Annotary,
  projectId: string,
  candidates: string[],
): Promise<Set<string>> {
  const total = Number(asRecord(await client.assets.list(projectId, { limit: 1 })).total ?? 0);
  const found = new Set<string>();
  if (total === 0 || candidates.length === 0) return found;
  const groups = probeGroups(candidates);
  if (Math.ceil(total / PAGE) <= groups.length) {
    for await (const asset of client.assets.iterate(projectId, { limit: PAGE })) {
      found.add(String(asRecord(asset).externalId));
    }
    return found;
  }
  for (const group of groups) {
    const filters = JSON.stringify({ externalId: group });
    for (const id of externalIdsOf(await client.assets.list(projectId, { filters, limit: PAGE }))) found.add(id);
  }
  return found;
}
