import { describe, expect, it } from 'vitest';
import { projectTells } from './project-tells';

const day = (iso: string) => iso.slice(0, 10);
const project = (_id: string, name: string, createdAt: string) => ({ _id, name, createdAt });

describe('projectTells', () => {
  it('gives no tell to a project whose name is its own', () => {
    const tells = projectTells([project('a'.repeat(24), 'Street scenes', '2026-11-01T10:00:00Z')], day);
    expect(tells.size).toBe(0);
  });

  it('tells projects of the same name (any case, spaces around) apart by the day they were made', () => {
    const tells = projectTells(
      [
        project('655f00000000000000000001', 'Street scenes', '2026-11-01T10:00:00Z'),
        project('655f00000000000000000002', ' street SCENES', '2026-11-03T09:00:00Z'),
        project('655f00000000000000000003', 'Signs', '2026-11-03T09:00:00Z'),
      ],
      day,
    );
    expect([...tells]).toEqual([
      ['655f00000000000000000001', 'created 2026-11-01'],
      ['655f00000000000000000002', 'created 2026-11-03'],
    ]);
  });

  it('adds the end of the id when the day is the same too, long enough to differ', () => {
    const tells = projectTells(
      [
        project('655f0000aaaaaaaaaa000001', 'Signs', '2026-11-03T09:00:00Z'),
        project('655f0000bbbbbbbbbb000001', 'Signs', '2026-11-03T11:00:00Z'),
        project('655f0000aaaaaaaaaa000002', 'Signs', '2026-11-03T12:00:00Z'),
        project('655f0000aaaaaaaaaa000003', 'Signs', '2026-11-04T12:00:00Z'),
      ],
      day,
    );
    expect(tells.get('655f0000aaaaaaaaaa000001')).toBe('created 2026-11-03 · #a000001');
    expect(tells.get('655f0000bbbbbbbbbb000001')).toBe('created 2026-11-03 · #b000001');
    expect(tells.get('655f0000aaaaaaaaaa000002')).toBe('created 2026-11-03 · #000002');
    expect(tells.get('655f0000aaaaaaaaaa000003')).toBe('created 2026-11-04');
  });
});
