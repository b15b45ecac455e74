/*
 * What a dataset export kept and what it could not express, counted by kind and reason: the
 * zip's README.md says it, so nothing is lost silently.
 */

export class DatasetReport {
  readonly kept = new Map<string, number>();
  readonly dropped = new Map<string, number>();
  images = 0;

  keep(what: string, n = 1): void {
    this.kept.set(what, (this.kept.get(what) ?? 0) + n);
  }

  drop(reason: string, n = 1): void {
    if (n > 0) this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + n);
  }

  /** The README: the format's own description, then the counts of this export. */
  readme(title: string, about: readonly string[]): string {
    const lines = [`# ${title}`, '', ...about, '', '## This export', '', `- images (or frames): ${this.images}`];
    for (const [what, n] of [...this.kept.entries()].sort()) lines.push(`- ${what}: ${n}`);
    lines.push('', '## Not in this format', '');
    if (!this.dropped.size) lines.push('Nothing of this project was left out.');
    for (const [reason, n] of [...this.dropped.entries()].sort()) lines.push(`- ${n} ${reason}`);
    return `${lines.join('\n')}\n`;
  }
}
