import { createHash } from 'node:crypto';

/** A draw in [0, 1) for a named occasion (a task meeting a RandomSample condition). */
export type Sampler = (key: string) => number;

/**
 * With a seed, each key gets its own fixed draw (hash of seed and key), so sampling is
 * repeatable and independent per task whatever order tasks are routed in. Without one, draws
 * are random.
 */
export function makeSampler(seed: string | undefined): Sampler {
  if (seed === undefined) return () => Math.random();
  return (key) => {
    const digest = createHash('sha256').update(`${seed}\u0000${key}`).digest();
    return digest.readUIntBE(0, 6) / 2 ** 48;
  };
}
