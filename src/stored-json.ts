import { randomBytes } from 'node:crypto';

/*
 * A JSON document we stored ourselves (written with JSON.stringify after validation, e.g. a
 * task's answer), put into an answer as its text instead of parsed. GET /task spent about a
 * sixth of its CPU parsing the stored answer and writing it out again through the response
 * schema (free-form records, serialised value by value); the text already is that JSON.
 *
 * Outside a serialiser wrapped by `splicingStoredJson` a StoredJson is the parsed document
 * (`toJSON`), so JSON.stringify and any other writer give the same JSON as before. Inside one,
 * fast-json-stringify (which calls `toJSON` on objects) writes a small marker object instead,
 * `{"<MARK>":<n>}`, and the wrapper puts the n-th text in its place. The marker's key carries a
 * random part drawn at start, so no stored or sent document can contain one.
 */

const MARK = `__annotary_stored_json_${randomBytes(12).toString('hex')}`;
const OPEN = `{"${MARK}":`;

/** The texts of the serialisation under way (serialisers are synchronous: one at a time). */
let collecting: string[] | undefined;

export class StoredJson {
  /** `text` must be JSON we wrote (JSON.stringify): it goes into answers as it is. */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (!collecting) return JSON.parse(this.text) as unknown;
    collecting.push(this.text);
    return { [MARK]: collecting.length - 1 };
  }
}

function splice(json: string, texts: readonly string[]): string {
  let out = '';
  let from = 0;
  for (let at = json.indexOf(OPEN); at !== -1; at = json.indexOf(OPEN, from)) {
    const close = json.indexOf('}', at + OPEN.length);
    const text = texts[Number(json.slice(at + OPEN.length, close))];
    if (close === -1 || text === undefined) throw new Error('stored JSON marker without its text');
    out += json.slice(from, at) + text;
    from = close + 1;
  }
  return out + json.slice(from);
}

/** A serialiser that writes each StoredJson in its data as the stored text itself. */
export function splicingStoredJson<T>(serialize: (data: T) => string): (data: T) => string {
  return (data) => {
    const outer = collecting;
    const texts: string[] = [];
    collecting = texts;
    let json: string;
    try {
      json = serialize(data);
    } finally {
      collecting = outer;
    }
    return texts.length === 0 ? json : splice(json, texts);
  };
}

/** A stored JSON column parsed, or `fallback` where it is null or empty. */
export function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null || text === '') return fallback;
  return JSON.parse(text) as T;
}
