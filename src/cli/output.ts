/** What commands print: tables for people, JSON (`--json`) for scripts. */

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows as aligned columns; a long cell is cut to keep one row per line. */
export function printTable(rows: unknown[], columns: string[], maxWidth = 60): void {
  const cells = rows.map((r) => columns.map((c) => cell(asRecord(r)[c]).replace(/\s+/g, ' ')));
  const cut = (s: string) => (s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s);
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => cut(row[i] ?? '').length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => cut(v).padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(columns), ...cells.map(line)].join('\n')}\n`);
}

/** One object as `key  value` lines (nested values as JSON). */
export function printFields(value: unknown, keys?: string[]): void {
  const record = asRecord(value);
  const names = keys ?? Object.keys(record);
  const width = Math.max(0, ...names.map((k) => k.length));
  const lines = names.filter((k) => record[k] !== undefined).map((k) => `${k.padEnd(width)}  ${cell(record[k])}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
