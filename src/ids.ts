import { randomBytes } from 'node:crypto';

// ObjectId layout (DECISIONS section 1): 4-byte seconds, 5 random bytes fixed per process,
// 3-byte counter. Ids made by one process sort by creation; across processes, by the second.
const processRandom = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newId(now: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now / 1000)
    .toString(16)
    .padStart(8, '0');
  return seconds + processRandom + counter.toString(16).padStart(6, '0');
}

export const ID_PATTERN = '^[0-9a-f]{24}$';
const idRe = new RegExp(ID_PATTERN);

export function isId(value: unknown): value is string {
  return typeof value === 'string' && idRe.test(value);
}
