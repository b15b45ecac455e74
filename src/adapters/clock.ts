/** Time source; tests steer it to make expiries and durations deterministic. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function isoNow(clock: Clock = systemClock): string {
  return new Date(clock.now()).toISOString();
}
