import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * Each folder of src/services/ is a domain whose README.md says what it calls; the dependency
 * rules of .dependency-cruiser.cjs (`domain-<name>-calls`, `domain-<name>-back-<file>`) enforce
 * the same lists. This holds the words and the rules together.
 */
interface Rule {
  name: string;
  from: { path: string };
  to: { pathNot?: string };
}
const require = createRequire(import.meta.url);
const rules = (require('../../.dependency-cruiser.cjs') as { forbidden: Rule[] }).forbidden;

/** The domains a rule's target pattern `^src/services/(a|b|c)/` lets `domain` call. */
function allowed(rule: Rule, domain: string): string[] {
  const group = /\^src\/services\/\(([^)]*)\)\//.exec(rule.to.pathNot ?? '')?.[1] ?? '';
  return group.split('|').filter((d) => d !== domain);
}

const declared = new Map<string, { calls: string[]; back: Map<string, string[]> }>();
for (const rule of rules) {
  const calls = /^domain-(\w+)-calls$/.exec(rule.name);
  if (calls) declared.set(calls[1]!, { calls: allowed(rule, calls[1]!), back: new Map() });
}
for (const rule of rules) {
  const back = /^domain-(\w+)-back-(.+)$/.exec(rule.name);
  if (!back) continue;
  const domain = declared.get(back[1]!)!;
  domain.back.set(
    `${back[2]}.ts`,
    allowed(rule, back[1]!).filter((d) => !domain.calls.includes(d)),
  );
}

const folders = fs
  .readdirSync('src/services', { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** The domain names a README's "Calls:" sentence names, parentheses left out. */
function namedCalls(readme: string): string[] {
  const text = /Calls:([\s\S]*?)(Still calls back up:|Owns |Below it:)/.exec(readme)?.[1] ?? '';
  const words = text.replace(/\([^)]*\)/g, '').match(/[a-z]+/g) ?? [];
  return [...new Set(words.filter((w) => folders.includes(w)))].sort();
}

/** The files a README's "Still calls back up:" sentence names. */
function namedBackFiles(readme: string): string[] {
  const text = /Still calls back up:([\s\S]*?)Below it:/.exec(readme)?.[1] ?? '';
  return [...text.matchAll(/`([\w.-]+\.ts)`/g)].map((m) => m[1]!).filter((f) => !f.includes('/'));
}

describe('service domains', () => {
  it('every folder of src/services/ is declared in the dependency rules, and only those', () => {
    expect([...declared.keys()].sort()).toEqual(folders);
  });

  it.each(folders)('services/%s/README.md names the domains its rule lets it call', (domain) => {
    const readme = fs.readFileSync(`src/services/${domain}/README.md`, 'utf8');
    const rule = declared.get(domain)!;
    expect(namedCalls(readme)).toEqual([...rule.calls].sort());
    const ownFiles = namedBackFiles(readme).filter((f) => fs.existsSync(`src/services/${domain}/${f}`));
    expect(ownFiles.sort()).toEqual([...rule.back.keys()].sort());
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
