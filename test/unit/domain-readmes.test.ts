import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * Each folder of src/services/ is a domain whose README.md says what it calls; the dependency
 * rules of .dependency-cruiser.cjs (`domain-<name>-calls`) enforce the same lists, with no file
 * allowed an arrow of its own. This holds the words and the rules together.
 */
interface Rule {
  name: string;
  from: { path: string; pathNot?: string | string[] };
  to: { pathNot?: string };
}
const require = createRequire(import.meta.url);
const rules = (require('../../.dependency-cruiser.cjs') as { forbidden: Rule[] }).forbidden;

/** The domains a rule's target pattern `^src/services/(a|b|c)/` lets `domain` call. */
function allowed(rule: Rule, domain: string): string[] {
  const group = /\^src\/services\/\(([^)]*)\)\//.exec(rule.to.pathNot ?? '')?.[1] ?? '';
  return group.split('|').filter((d) => d !== domain);
}

const declared = new Map<string, { calls: string[]; rule: Rule }>();
for (const rule of rules) {
  const calls = /^domain-(\w+)-calls$/.exec(rule.name);
  if (calls) declared.set(calls[1]!, { calls: allowed(rule, calls[1]!), rule });
}

const folders = fs
  .readdirSync('src/services', { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The domain names a README's "Calls:" sentence names, parentheses left out. */
function namedCalls(readme: string): string[] {
  const text = /Calls:([\s\S]*?)(Owns |Below it:)/.exec(readme)?.[1] ?? '';
  const words = text.replace(/\([^)]*\)/g, '').match(/[a-z]+/g) ?? [];
  return [...new Set(words.filter((w) => folders.includes(w)))].sort();
}

describe('service domains', () => {
  it('every folder of src/services/ is declared in the dependency rules, and only those', () => {
    expect([...declared.keys()].sort()).toEqual(folders);
  });

  it.each(folders)('services/%s/README.md names the domains its rule lets it call', (domain) => {
    const readme = fs.readFileSync(`src/services/${domain}/README.md`, 'utf8');
    const rule = declared.get(domain)!;
    expect(namedCalls(readme)).toEqual([...rule.calls].sort());
    expect(readme).not.toMatch(/calls back up/i);
  });

  it.each(folders)('services/%s/ has no file exempt from its rule', (domain) => {
    const { rule } = declared.get(domain)!;
    expect(rule.from.pathNot).toBeUndefined();
    expect(rules.filter((r) => r.name.startsWith(`domain-${domain}-`)).map((r) => r.name)).toEqual([
      `domain-${domain}-calls`,
    ]);
  });

  it('the declared calls run one way: no domain reaches itself through them', () => {
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const next of declared.get(from)?.calls ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        reach(next, seen);
      }
      return seen;
    };
    for (const domain of folders) expect(reach(domain).has(domain), domain).toBe(false);
  });
});
