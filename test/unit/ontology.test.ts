import { describe, expect, it } from 'vitest';
import { normalizePctConfig, validateCategorySchema } from '../../src/services/projects/ontology.js';

const box = (schemaId: string, extra: Record<string, unknown> = {}) => ({
  schemaId,
  title: schemaId,
  tool: 'bounding-box',
  ...extra,
});
const radio = (schemaId: string, extra: Record<string, unknown> = {}) => ({
  schemaId,
  title: schemaId,
  tool: 'radio',
  ...extra,
});
const fields = (r: { errors: { field: string }[] }) => r.errors.map((e) => e.field);

describe('validateCategorySchema: stored form', () => {
  it('passes a standard ontology, fills defaults, drops nulls and keeps unknown properties', () => {
    const input = {
      tools: [box('t1', { exportName: null, color: '#00ff00', custom: 'kept' })],
      classifications: [radio('c1', { regex: null, options: [{ schemaId: 'o1', value: 'a', note: null }] })],
    };
    const r = validateCategorySchema(input, 'standard');
    expect(r.errors).toEqual([]);
    expect(r.value.tools?.[0]).toEqual({
      ...box('t1'),
      color: '#00ff00',
      custom: 'kept',
      required: false,
      multiple: false,
    });
    expect(r.value.classifications?.[0]).toMatchObject({ regex: null, required: false, showDropdown: false });
    // Unknown properties are kept as sent, null included.
    expect(r.value.classifications?.[0]?.options?.[0]).toEqual({ schemaId: 'o1', value: 'a', note: null });
    expect(r.value.relations).toEqual([]);
    expect(input.tools[0]).toHaveProperty('exportName', null);
  });

  it('answers an empty schema as three empty lists', () => {
    expect(validateCategorySchema({}, 'standard')).toEqual({
      value: { tools: [], classifications: [], relations: [] },
      errors: [],
    });
  });
});

describe('validateCategorySchema: unique schemaIds', () => {
  it('names the second occurrence among tools', () => {
    const r = validateCategorySchema({ tools: [box('a'), box('b'), box('a')] }, 'standard');
    expect(fields(r)).toEqual(['categorySchema.tools[2].schemaId']);
    expect(r.errors[0]?.message).toContain('categorySchema.tools[0].schemaId');
  });

  it('sees duplicates across tools, nested classifications, options and relations', () => {
    const input = {
      tools: [box('t', { classifications: [radio('x')] })],
      classifications: [
        radio('c', {
          options: [
            { schemaId: 'o', value: '1' },
            { schemaId: 'p', value: '2', children: [radio('x')] },
          ],
        }),
      ],
      relations: [{ schemaId: 't', title: 'r', tool: 'group' }],
    };
    expect(fields(validateCategorySchema(input, 'standard'))).toEqual([
      'categorySchema.classifications[0].options[1].children[0].schemaId',
      'categorySchema.relations[0].schemaId',
    ]);
  });

  it('treats an option schemaId like any other', () => {
    const input = { classifications: [radio('c', { options: [{ schemaId: 'c', value: '1' }] })] };
    expect(fields(validateCategorySchema(input, 'standard'))).toEqual([
      'categorySchema.classifications[0].options[0].schemaId',
    ]);
  });

  it('uses the given base path', () => {
    expect(fields(validateCategorySchema({ tools: [box('a'), box('a')] }, 'standard', 'schema'))).toEqual([
      'schema.tools[1].schemaId',
    ]);
  });
});

describe('validateCategorySchema: pct-only fields and kinds', () => {
  it('refuses pct-only tool fields on standard projects, but a null counts as absent', () => {
    const bad = validateCategorySchema({ tools: [box('a', { exportName: 'A', truncate: false })] }, 'standard');
    expect(fields(bad)).toEqual(['categorySchema.tools[0].exportName', 'categorySchema.tools[0].truncate']);
    const nulls = validateCategorySchema({ tools: [box('a', { exportName: null, displayName: null })] }, 'iframe');
    expect(nulls.errors).toEqual([]);
    expect(nulls.value.tools?.[0]).not.toHaveProperty('exportName');
  });

  it('refuses pct-only classification fields at any depth', () => {
    const input = { tools: [box('t', { classifications: [radio('c', { attributeLevel: 'Class Level' })] })] };
    expect(fields(validateCategorySchema(input, 'standard'))).toEqual([
      'categorySchema.tools[0].classifications[0].attributeLevel',
    ]);
    expect(validateCategorySchema(input, 'pct').errors).toEqual([]);
  });

  it('allows the pct tool only on pct projects and stores sizes as strings', () => {
    const pctTool = {
      schemaId: 'p',
      title: 'Car',
      tool: 'pct',
      markingTools: ['cuboid'],
      cuboidLength: 4.5,
      cuboidWidth: '2',
    };
    expect(fields(validateCategorySchema({ tools: [pctTool] }, 'standard'))).toContain('categorySchema.tools[0].tool');
    const r = validateCategorySchema({ tools: [pctTool] }, 'pct');
    expect(r.errors).toEqual([]);
    expect(r.value.tools?.[0]).toMatchObject({
      cuboidLength: '4.5',
      cuboidWidth: '2',
      truncate: false,
      hasInstance: false,
    });
  });

  it('allows one-to-one and group relations only off pct', () => {
    const rel = (tool: string) => ({ relations: [{ schemaId: 'r', title: 'r', tool }] });
    expect(validateCategorySchema(rel('one-to-one'), 'standard').errors).toEqual([]);
    expect(validateCategorySchema(rel('group'), 'standard').value.relations?.[0]).toMatchObject({
      classifications: [],
    });
    expect(fields(validateCategorySchema(rel('group'), 'pct'))).toEqual(['categorySchema.relations[0].tool']);
    expect(fields(validateCategorySchema(rel('one-to-one'), 'pct'))).toEqual(['categorySchema.relations[0].tool']);
  });

  it('allows one-to-many only on pct, with a parent and children that are tools', () => {
    const tools = [box('car'), box('wheel'), box('door')];
    const rel = (extra: Record<string, unknown>) => ({
      tools,
      relations: [{ schemaId: 'r', title: 'r', tool: 'one-to-many', ...extra }],
    });
    expect(validateCategorySchema(rel({ parentTool: 'car', childTools: ['wheel', 'door'] }), 'pct').errors).toEqual([]);
    expect(fields(validateCategorySchema(rel({}), 'standard'))).toEqual(['categorySchema.relations[0].tool']);
    expect(fields(validateCategorySchema(rel({ parentTool: 'bus', childTools: ['wheel', 'seat'] }), 'pct'))).toEqual([
      'categorySchema.relations[0].parentTool',
      'categorySchema.relations[0].childTools[1]',
    ]);
    expect(fields(validateCategorySchema(rel({ parentTool: 'car' }), 'pct'))).toEqual([
      'categorySchema.relations[0].childTools',
    ]);
  });

  it('refuses relation parentTool on standard projects', () => {
    const input = { tools: [box('a')], relations: [{ schemaId: 'r', title: 'r', tool: 'group', parentTool: 'a' }] };
    expect(fields(validateCategorySchema(input, 'standard'))).toEqual(['categorySchema.relations[0].parentTool']);
  });
});

describe('normalizePctConfig', () => {
  it('fills the contract defaults', () => {
    expect(normalizePctConfig({})).toEqual({
      value: {
        allowOverlapping: false,
        trackingMultipleSensors: false,
        segmentationMode: false,
        externalValidation: {
          enabled: false,
          apiUrl: '',
          singleFrame: false,
          specificFrame: false,
          frameNumbers: null,
        },
        segmentationValidation: { enabled: false, completeCoverage: 100 },
      },
      errors: [],
    });
  });

  it('coerces a numeric frameNumbers string and keeps what was given', () => {
    const r = normalizePctConfig({ allowOverlapping: true, externalValidation: { enabled: true, frameNumbers: '12' } });
    expect(r.errors).toEqual([]);
    expect(r.value.allowOverlapping).toBe(true);
    expect(r.value.externalValidation).toMatchObject({ enabled: true, frameNumbers: 12 });
    expect(normalizePctConfig({ externalValidation: { frameNumbers: 7 } }).value.externalValidation?.frameNumbers).toBe(
      7,
    );
    expect(
      normalizePctConfig({ externalValidation: { frameNumbers: '' } }).value.externalValidation?.frameNumbers,
    ).toBe(null);
  });

  it('names frameNumbers when it is not a number', () => {
    for (const bad of ['twelve', '1.5', '-3', 2.5]) {
      expect(fields(normalizePctConfig({ externalValidation: { frameNumbers: bad } }))).toEqual([
        'pctConfig.externalValidation.frameNumbers',
      ]);
    }
  });
});
