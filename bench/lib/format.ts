import type { Table } from './types.js';

/** 12345.6 -> "12,346"; small numbers keep `digits` decimals. */
export function num(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function mib(bytes: number): string {
  return `${num(bytes / 1024 ** 2, 1)} MiB`;
}

export function ms(value: number): string {
  return `${num(value, value < 10 ? 2 : 1)} ms`;
}

/** autocannon records latencies in whole milliseconds: 0 means "under 1 ms". */
export function wholeMs(value: number): string {
  return value < 1 ? '<1 ms' : `${num(value)} ms`;
}

/** The table as aligned text: text columns left, numbers right. */
export function renderTable(t: Table): string {
  const cells = [t.columns, ...t.rows.map((r) => r.map((c) => (typeof c === 'number' ? num(c) : c)))];
  const numeric = t.columns.map((_, i) => t.rows.length > 0 && t.rows.every((r) => isNumberLike(r[i])));
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => String(r[i] ?? '').length)));
  const line = (r: (string | number)[]) =>
    r
      .map((c, i) => {
        const s = String(c ?? '');
        const w = widths[i] ?? 0;
        return numeric[i] ? s.padStart(w) : s.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0] as string[]), rule, ...cells.slice(1).map(line)].join('\n');
}

/** The table as GitHub Markdown, for pasting into docs/benchmarks.md. */
export function markdownTable(t: Table): string {
  const head = `| ${t.columns.join(' | ')} |`;
  const rule = `| ${t.columns.map((_, i) => (t.rows.every((r) => isNumberLike(r[i])) ? '---:' : '---')).join(' | ')} |`;
  const rows = t.rows.map((r) => `| ${r.map((c) => (typeof c === 'number' ? num(c) : c)).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}

function isNumberLike(c: unknown): boolean {
  return typeof c === 'number' || (typeof c === 'string' && /^<?[\d,.]+(\s?(ms|MiB|x|%|req\/s))?$/.test(c));
}
