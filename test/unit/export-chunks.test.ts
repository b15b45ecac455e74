import { describe, expect, it } from 'vitest';
import { ChunkWriter, framed, type ItemPage, type NextPage } from '../../src/services/exports/export-chunks.js';

const CHUNK = 64 * 1024;

/** Pieces of every shape: tiny, multi-byte (é, ✓, 😀 as surrogate pairs), chunk-sized, larger. */
function pieces(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 3000; i++) {
    out.push(['{"a":', 'é'.repeat(i % 50), '✓😀'.repeat(i % 7), `${i}`, '}'][i % 5] as string);
    if (i % 997 === 0) out.push('😀'.repeat(40_000)); // 160 KB in UTF-8: larger than a chunk
    if (i % 1499 === 0) out.push('x'.repeat(CHUNK));
  }
  // Many two-byte pieces of varied length, so that chunks fill up in the middle of one.
  for (let i = 0; i < 20_000; i++) out.push('é'.repeat(1 + ((i * 37) % 300)));
  return out;
}

describe('ChunkWriter', () => {
  it('encodes pieces into chunks of at most 64 KiB that decode to the same text', () => {
    const all = pieces();
    const w = new ChunkWriter();
    const chunks: Buffer[] = [];
    for (const p of all) {
      w.write(p);
      chunks.push(...w.take());
    }
    chunks.push(...w.end());
    expect(Buffer.concat(chunks).toString('utf8')).toBe(all.join(''));
    // Only a chunk holding one piece larger than a chunk may exceed the size.
    const larger = chunks.filter((c) => c.length > CHUNK);
    expect(larger.map((c) => c.toString('utf8'))).toEqual(all.filter((p) => Buffer.byteLength(p) > CHUNK));
    expect(chunks.every((c) => c.length > 0)).toBe(true);
  });
});

describe('framed', () => {
  const pagesOf = (items: string[][]): NextPage => {
    let n = 0;
    return async () => {
      const page = items[n++];
      return page && { size: page.length, write: (out, i) => out.write(page[i] as string) };
    };
  };
  const text = async (items: string[][], format: 'json' | 'ndjson') => {
    const chunks: Buffer[] = [];
    for await (const c of framed(pagesOf(items), format)) chunks.push(c);
    return Buffer.concat(chunks).toString('utf8');
  };

  it('frames items as a JSON array, one per line, or as NDJSON, across pages', async () => {
    const items = [['{"a":1}', '{"b":"é"}'], [], ['{"c":3}']];
    expect(await text(items, 'json')).toBe('[\n{"a":1},\n{"b":"é"},\n{"c":3}\n]\n');
    expect(await text(items, 'ndjson')).toBe('{"a":1}\n{"b":"é"}\n{"c":3}\n');
    expect(await text([], 'json')).toBe('[]\n');
    expect(await text([], 'ndjson')).toBe('');
  });

  it('hands chunks on between the parts of an item written in parts, in order, between whole items', async () => {
    let written = 0;
    const next = (() => {
      const pages: ItemPage[] = [
        {
          size: 3,
          write: (out, i) => {
            if (i !== 1) return out.write(`{"i":${i}}`);
            return (function* () {
              out.write('{"big":[');
              for (let p = 0; p < 50; p++) {
                out.write(`${p ? ',' : ''}"${'x'.repeat(10_000)}"`);
                written++;
                yield;
              }
              out.write(']}');
            })();
          },
        },
        { size: 1, write: (out) => out.write('{"i":3}') },
      ];
      return async () => pages.shift();
    })();
    const chunks: Buffer[] = [];
    const writtenAt: number[] = [];
    for await (const c of framed(next, 'ndjson')) {
      chunks.push(c);
      writtenAt.push(written);
    }
    // Chunks left while the item was still being written: memory held a part, not the item.
    expect(writtenAt.filter((w) => w < 50).length).toBeGreaterThan(4);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    expect(lines.map((l) => l.slice(0, 8))).toEqual(['{"i":0}', '{"big":[', '{"i":2}', '{"i":3}', '']);
    expect((JSON.parse(lines[1] as string) as { big: string[] }).big).toHaveLength(50);
  });
});
