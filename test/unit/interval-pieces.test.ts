import { describe, expect, it } from 'vitest';
import { intervalPieces } from '../../src/store/repositories/work-count.repository.js';

/* How an interval is cut between the hour counts, the minute counts and the history. */

const ms = (iso: string) => Date.parse(iso);

describe('intervalPieces', () => {
  it('reads whole hours, then the whole minutes at either end, then the seconds from the history', () => {
    expect(intervalPieces(ms('2026-05-04T22:10:30.000Z'), ms('2026-05-05T01:05:00.250Z'))).toEqual([
      { source: 'work_counts', from: '2026-05-04T23', to: '2026-05-05T01' },
      { source: 'work_minute_counts', from: '2026-05-04T22:11', to: '2026-05-04T23:00' },
      { source: 'task_history', from: '2026-05-04T22:10:30.000Z', to: '2026-05-04T22:11:00.000Z' },
      { source: 'work_minute_counts', from: '2026-05-05T01:00', to: '2026-05-05T01:05' },
      { source: 'task_history', from: '2026-05-05T01:05:00.000Z', to: '2026-05-05T01:05:00.250Z' },
    ]);
  });

  it('leaves open ends to the hour counts and skips what is already whole', () => {
    expect(intervalPieces(undefined, undefined)).toEqual([{ source: 'work_counts', from: undefined, to: undefined }]);
    expect(intervalPieces(ms('2026-05-04T22:00:00.000Z'), undefined)).toEqual([
      { source: 'work_counts', from: '2026-05-04T22', to: undefined },
    ]);
    expect(intervalPieces(undefined, ms('2026-05-04T22:30:00.000Z'))).toEqual([
      { source: 'work_counts', from: undefined, to: '2026-05-04T22' },
      { source: 'work_minute_counts', from: '2026-05-04T22:00', to: '2026-05-04T22:30' },
    ]);
  });

  it('counts an interval inside one hour by minutes, inside one minute from the history, an empty one nowhere', () => {
    expect(intervalPieces(ms('2026-05-04T22:10:00.000Z'), ms('2026-05-04T22:40:00.000Z'))).toEqual([
      { source: 'work_minute_counts', from: '2026-05-04T22:10', to: '2026-05-04T22:40' },
    ]);
    expect(intervalPieces(ms('2026-05-04T22:10:05.000Z'), ms('2026-05-04T22:10:45.000Z'))).toEqual([
      { source: 'task_history', from: '2026-05-04T22:10:05.000Z', to: '2026-05-04T22:10:45.000Z' },
    ]);
    expect(intervalPieces(ms('2026-05-04T22:10:05.000Z'), ms('2026-05-04T22:10:05.000Z'))).toEqual([]);
  });
});
