import { describe, expect, it } from 'vitest';
import { ImportScanner, type ScanSink, type ValueKind } from '../../src/http/import-scan.js';

/**
 * The import body's scanner (src/http/import-scan.ts) finds each value's end by its strings
 * and brackets and leaves the rest to JSON.parse: whatever pieces the body arrives in, it must
 * answer what JSON.parse of the whole body answers, and refuse exactly what JSON.parse refuses.
 */
type Event =
  | ['root', ValueKind]
  | ['key', string]
  | ['start', ValueKind]
  | ['value', unknown]
  | ['item', number, unknown]
  | ['deep']
  | ['nul'];

function scan(body: string, cuts: number[] = []): Event[] {
  const events: Event[] = [];
  const sink: ScanSink = {
    root: (kind) => events.push(['root', kind]),
    key: (name) => events.push(['key', name]),
    valueStart: (kind) => events.push(['start', kind]),
    value: (value) => events.push(['value', value]),
    items: (values, first) => values.forEach((v, i) => events.push(['item', first + i, v])),
    deep: () => events.push(['deep']),
    nul: () => events.push(['nul']),
  };
  const scanner = new ImportScanner(sink);
  const bytes = Buffer.from(body, 'utf8');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    scanner.write(bytes.subarray(from, cut));
    from = cut;
  }
  scanner.end();
  return events;
}

const kind = (v: unknown): ValueKind =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as 'object' | 'string' | 'number' | 'boolean');

/** What the scanner should report for a valid body, from JSON.parse of the whole of it. */
function expected(body: string): Event[] {
  const root = JSON.parse(body) as unknown;
  const events: Event[] = [['root', kind(root)]];
  if (kind(root) !== 'object') return events;
  // Keys in the body's order (JSON.parse puts integer-like keys first): read them from the text.
  const keys = [...body.matchAll(/^ {2}"((?:[^"\\]|\\.)*)":/gm)].map((m) => JSON.parse(`"${m[1]}"`) as string);
  const obj = root as Record<string, unknown>;
  for (const key of keys.length ? keys : Object.keys(obj)) {
    const value = obj[key];
    events.push(['key', key], ['start', kind(value)]);
    if (key === 'assets' && Array.isArray(value)) value.forEach((v, i) => events.push(['item', i, v]));
    else events.push(['value', value]);
  }
  return events;
}

/** Every way of cutting `body` in two, and the body one byte at a time. */
function splits(body: string): number[][] {
  const n = Buffer.byteLength(body);
  return [...Array.from({ length: n + 1 }, (_, i) => [i]), Array.from({ length: n }, (_, i) => i)];
}

const tricky = {
  priority: 3,
  assets: [
    { data: 'https://cdn.example.com/a.jpg', externalId: 'quote " brace } { bracket ] [ comma , colon : slash \\' },
    {
      data: 'https://cdn.example.com/é.jpg',
      externalId: 'é 漢字 🎉 \u00e9',
      metadata: { note: '\\"}]', n: [1, 2.5e3, -0] },
    },
    { data: 'https://cdn.example.com/c.jpg', metadata: { empty: {}, list: [], t: true, f: false, z: null } },
    'a string',
    42,
    null,
    [1, [2, [3]]],
  ],
  extra: { deep: [{ a: 'b' }], s: 'x\\u0000y' },
  uploadLocal: false,
};

describe('the import body scanner', () => {
  it('reads what JSON.parse reads, however the body is cut', () => {
    const body = JSON.stringify(tricky, null, 2);
    const want = expected(body);
    expect(scan(body)).toEqual(want);
    for (const cuts of splits(body)) expect(scan(body, cuts)).toEqual(want);
  });

  it('takes JSON whitespace anywhere between values, and none', () => {
    const bodies = [
      ' \t\r\n{ "assets" : [ {"data":"x"} , 1 ,"s",null ] , "priority" : 2 } \r\n',
      '{"assets":[{"data":"x"},1,"s",null],"priority":2}',
      '{"assets":[]}',
      '{"assets":[ \n ]}',
      '{}',
      '{ }',
      '[1, {"a": [true]}]',
      '"just a string"',
      ' 12.5e-3 ',
      '-7',
      'null',
      'true',
    ];
    for (const body of bodies) {
      const want = expected(body);
      for (const cuts of splits(body)) expect(scan(body, cuts), `${body} cut at ${cuts.join(',')}`).toEqual(want);
    }
  });

  it('refuses what JSON.parse refuses, however the body is cut', () => {
    const bad = [
      '{"assets":[{"data":"x"},,{"data":"y"}]}',
      '{"assets":[{"data":"x"},]}',
      '{"assets":[,{"data":"x"}]}',
      '{"assets":[{"data":"x"}{"data":"y"}]}',
      '{"assets":[{"data":"x"} {"data":"y"}]}',
      '{"assets":[{"data":"x"]}',
      '{"assets":[{"data":"x"}}',
      '{"assets":[{"data":tru}]}',
      '{"assets":[{"data":"x\\q"}]}',
      '{"assets":[{"data":"x\u0001"}]}',
      '{"assets":[1 2]}',
      '{"assets":[1"x"]}',
      '{"assets":[01]}',
      '{"assets":[{"data":"x"}]',
      '{"assets":[{"data":"x"}]}}',
      '{"assets":[{"data":"x"}]} x',
      '{} {}',
      '{"a" "b"}',
      '{"a":1,}',
      '{,"a":1}',
      '{a:1}',
      '{"a":}',
      '{"a":1 "b":2}',
      "{'a':1}",
      '{"a":"\\u12"}',
      '{"a":"unterminated',
      '[1,]',
      '\u00a0{}',
      '\ufeff{}',
      '{"assets":[NaN]}',
      '}',
      ']',
      ',',
    ];
    for (const body of bad) {
      expect(() => JSON.parse(body), body).toThrow();
      for (const cuts of splits(body)) expect(() => scan(body, cuts), `${body} cut at ${cuts.join(',')}`).toThrow();
    }
  });

  it('tells a too deep value before the item it is in, and NUL characters outside the assets where they are', () => {
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    // The root object is depth 0, the assets' items 2: a value at depth 65 is too deep.
    const deepItem = `{"assets":[{"data":"x"},{"m":${nest(63)}},{"data":"y"}]}`;
    const okItem = `{"assets":[{"data":"x"},{"m":${nest(62)}},{"data":"y"}]}`;
    for (const cuts of splits(deepItem)) {
      const events = scan(deepItem, cuts);
      const at = events.findIndex((e) => e[0] === 'deep');
      expect(events[at - 1]?.[0] === 'item' && events[at - 1]?.[1]).toBe(0);
      expect(events[at + 1]?.[0] === 'item' && events[at + 1]?.[1]).toBe(1);
      expect(events.filter((e) => e[0] === 'deep')).toHaveLength(1);
    }
    expect(scan(okItem).some((e) => e[0] === 'deep')).toBe(false);
    expect(scan(`{"extra":${nest(65)}}`).some((e) => e[0] === 'deep')).toBe(true);
    expect(scan(`{"extra":${nest(64)}}`).some((e) => e[0] === 'deep')).toBe(false);
    expect(scan(`{"extra":[${'['.repeat(63)}1${']'.repeat(63)}]}`).some((e) => e[0] === 'deep')).toBe(true);

    const nul = (body: string) => scan(body).filter((e) => e[0] === 'nul' || e[0] === 'deep' || e[0] === 'key');
    expect(nul('{"extra":{"k\\u0000":1},"b":"\\u0000"}')).toEqual([['key', 'extra'], ['nul'], ['key', 'b'], ['nul']]);
    // An escaped backslash before "u0000" is no NUL; inside the assets NUL is the reader's to find.
    expect(nul('{"a":"\\\\u0000","assets":[{"data":"\\u0000"}]}')).toEqual([
      ['key', 'a'],
      ['key', 'assets'],
    ]);
    expect(nul('["\\u0000"]')).toEqual([['nul']]);
    expect(nul('"\\u0000"')).toEqual([]);
  });
});
