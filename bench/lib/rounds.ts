/**
 * Alternated rounds: every "Annotary vs baseline" benchmark measures the two one after the
 * other, `--rounds N` times (default 3), and reports each side's median round and the spread of
 * its rounds. A machine shared with other work changes speed from one minute to the next; two
 * figures taken side by side, several times, say more than one long run of each.
 */

export const DEFAULT_ROUNDS = 3;

/** `--rounds N` (a whole number >= 1), or the default. */
export function roundsOption(extra: Record<string, string | undefined>, fallback = DEFAULT_ROUNDS): number {
  const rounds = Number(extra.rounds ?? fallback);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1');
  return rounds;
}

/** The median element by `key` (the lower middle one of an even count). */
export function medianBy<T>(list: readonly T[], key: (t: T) => number): T {
  if (list.length === 0) throw new Error('medianBy of an empty list');
  const sorted = [...list].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)] as T;
}

/** "min-max" of the rounds, formatted; "-" for a single round. */
export function spreadOf(values: readonly number[], format: (n: number) => string): string {
  return values.length > 1 ? `${format(Math.min(...values))}-${format(Math.max(...values))}` : '-';
}
