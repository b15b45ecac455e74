/**
 * What tells apart projects that share a name (the switcher shows it beside the name): the day
 * each was created, and when that is the same too, the end of its id, as short as still tells
 * them apart (at least 6 characters: the end of an id is its counter, the part that differs).
 * Names compare without case and surrounding spaces, as a person reads them. A project whose
 * name is its own has no tell.
 */
export function projectTells(
  projects: readonly { _id: string; name: string; createdAt: string }[],
  day: (iso: string) => string = createdDay,
): Map<string, string> {
  const byName = new Map<string, (typeof projects)[number][]>();
  for (const p of projects) {
    const key = p.name.trim().toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), p]);
  }
  const tells = new Map<string, string>();
  for (const same of byName.values()) {
    if (same.length < 2) continue;
    const days = same.map((p) => day(p.createdAt));
    same.forEach((p, i) => {
      const created = `created ${days[i] ?? ''}`;
      const twins = same.filter((q, j) => days[j] === days[i]);
      tells.set(p._id, twins.length > 1 ? `${created} · #${shortestUniqueEnd(p._id, twins)}` : created);
    });
  }
  return tells;
}

function shortestUniqueEnd(id: string, among: readonly { _id: string }[]): string {
  for (let n = Math.min(6, id.length); n < id.length; n++) {
    const end = id.slice(-n);
    if (among.every((q) => q._id === id || !q._id.endsWith(end))) return end;
  }
  return id;
}

const createdDay = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
