import { describe, expect, it } from 'vitest';
import { splicingStoredJson, StoredJson } from '../../src/stored-json.js';

const TEXT = JSON.stringify({ tools: [{ schemaId: 'car', note: '{"x":1} "quoted" }' }], classifications: [] });

describe('StoredJson', () => {
  it('is the parsed document outside a splicing serialiser', () => {
    const data = { task: { _id: 't1', answer: new StoredJson(TEXT) } };
    expect(JSON.parse(JSON.stringify(data))).toEqual({ task: { _id: 't1', answer: JSON.parse(TEXT) } });
  });

  it('is written as its text inside one, at any depth and any number of times', () => {
    const serialize = splicingStoredJson((d: unknown) => JSON.stringify(d));
    const data = {
      tasks: [
        { _id: 'a', answer: new StoredJson(TEXT) },
        { _id: 'b', answer: new StoredJson('{}') },
        { _id: 'c', note: '{"__annotary_stored_json_0":0}' },
      ],
    };
    const json = serialize(data);
    expect(json).toBe(
      `{"tasks":[{"_id":"a","answer":${TEXT}},{"_id":"b","answer":{}},{"_id":"c","note":"{\\"__annotary_stored_json_0\\":0}"}]}`,
    );
    // A serialiser that throws leaves no collection behind.
    const failing = splicingStoredJson(() => {
      throw new Error('boom');
    });
    expect(() => failing({})).toThrow('boom');
    expect(JSON.stringify(new StoredJson(TEXT))).toBe(TEXT);
  });
});
