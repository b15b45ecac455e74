/**
 * The exports made from this browser, per project: the API keeps no list, and each link is
 * good for 24 hours, so the page remembers its own links (localStorage) until they expire.
 */
export interface MadeExport {
  exportPath: string;
  summary: string;
  madeAt: string;
  expiresAt: string | undefined;
  seconds: number;
}

const key = (projectId: string) => `annotary.exports.${projectId}`;
const KEEP = 20;

export function loadExports(projectId: string, now = Date.now()): MadeExport[] {
  try {
    const raw = JSON.parse(localStorage.getItem(key(projectId)) ?? '[]') as MadeExport[];
    return raw.filter((e) => !e.expiresAt || Date.parse(e.expiresAt) > now);
  } catch {
    return [];
  }
}

export function rememberExport(projectId: string, made: MadeExport): MadeExport[] {
  const list = [made, ...loadExports(projectId)].slice(0, KEEP);
  try {
    localStorage.setItem(key(projectId), JSON.stringify(list));
  } catch {
    // Private windows may refuse storage: the list then lasts as long as the page.
  }
  return list;
}
