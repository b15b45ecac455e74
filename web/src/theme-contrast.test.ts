import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The console's colours in both schemes, read from styles.css as the browser reads them, against
 * WCAG 2's contrast ratio: text inks on the surfaces they are drawn on at least 4.5:1.
 */

const css = fs.readFileSync(path.join(import.meta.dirname, 'styles.css'), 'utf8');

function variables(block: string): Map<string, string> {
  return new Map([...block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{3,6})\s*;/gi)].map((m) => [m[1]!, m[2]!]));
}

const light = variables(css.slice(0, css.indexOf('}')));
const darkStart = css.indexOf('@media (prefers-color-scheme: dark)');
const dark = variables(css.slice(darkStart, css.indexOf('}', darkStart)));

function luminance(hex: string): number {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const PAIRS: [ink: string, ground: string][] = [
  ['fg', 'bg'],
  ['fg', 'surface'],
  ['muted', 'bg'],
  ['muted', 'surface'],
  ['accent', 'surface'],
  ['accent', 'accent-soft'],
  ['on-accent', 'accent'],
  ['danger', 'surface'],
  ['danger', 'danger-soft'],
  ['warn', 'surface'],
  ['warn-fg', 'warn-soft'],
  ['ok', 'surface'],
  ['ok', 'ok-soft'],
  ['on-accent', 'ok'],
];

describe('the console colours', () => {
  it('define every variable in dark mode that light mode has', () => {
    expect([...dark.keys()].sort()).toEqual([...light.keys()].sort());
  });

  for (const [scheme, vars] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    it.each(PAIRS)(`${scheme}: --%s on --%s reads at 4.5:1 or more`, (ink, ground) => {
      const ratio = contrast(vars.get(ink) ?? '', vars.get(ground) ?? '');
      expect(ratio).toBeGreaterThanOrEqual(4.5);
    });
  }
});
