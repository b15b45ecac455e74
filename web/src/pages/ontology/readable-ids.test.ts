import { describe, expect, it } from 'vitest';
import type { CategorySchema } from '../../api/types';
import { slugOf, withoutDraftMarks, withReadableIds } from './readable-ids';

describe('readable ontology ids', () => {
  it('makes an id of a title: ASCII letters and digits joined by hyphens', () => {
    expect(slugOf('Car')).toBe('car');
    expect(slugOf('  Traffic light (red) ')).toBe('traffic-light-red');
    expect(slugOf('Straße ÉTÉ')).toBe('stra-e-ete');
    expect(slugOf('???')).toBe('');
    expect(slugOf('x'.repeat(60))).toHaveLength(40);
  });

  it('keeps typed and saved ids, and tells new ones apart across the whole ontology', () => {
    const schema: CategorySchema = {
      tools: [
        { schemaId: 'car', title: 'Car', tool: 'bounding-box' },
        { schemaId: '', title: 'Car', tool: 'polygon', __auto: true },
      ],
      classifications: [
        {
          schemaId: '',
          title: 'Weather',
          tool: 'radio',
          __auto: true,
          options: [
            { schemaId: '', value: 'Sunny', __auto: true },
            { schemaId: 'wet', value: 'Rainy' },
            { schemaId: '', value: '', __auto: true },
          ],
        },
      ],
      relations: [{ schemaId: '', title: 'Weather', tool: 'one-to-one', __auto: true, __key: 'k1' }],
    };
    const out = withReadableIds(schema);
    expect(out.tools.map((t) => t.schemaId)).toEqual(['car', 'car-2']);
    expect(out.classifications[0]?.schemaId).toBe('weather');
    expect(out.classifications[0]?.options?.map((o) => o.schemaId)).toEqual(['sunny', 'wet', 'option']);
    expect(out.relations[0]?.schemaId).toBe('weather-2');
    expect(JSON.stringify(withoutDraftMarks(out))).not.toContain('__');
  });
});
