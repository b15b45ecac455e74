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

/*
 * Random hex for ids made in numbers (an answer's object ids, 20 or more per annotate): one
 * `randomBytes` call per id was a fifth of an annotate's own CPU. The bytes come from the same
 * CSPRNG, drawn 4 KiB at a time; none is handed out twice.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomBytes(bytes).toString('hex');
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  poolAt += bytes;
  return pool.toString('hex', poolAt - bytes, poolAt);
}
