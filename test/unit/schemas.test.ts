import { describe, expect, it } from 'vitest';
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import {
  CategorySchema,
  ErrorResponse,
  HexColor,
  Id,
  ListFilesQuery,
  PaginationQuery,
  ProjectCreateRequest,
  ProjectUpdateRequest,
  QueryBoolean,
  SortQuery,
  Stage,
  StorageCreateRequest,
  StringEnum,
  Success,
  WebhookPayload,
  parseQueryBoolean,
} from '../../src/schemas/index.js';

/** instancePaths of the errors, as the TypeBox compiler reports them. */
const paths = (schema: TSchema, value: unknown) => [...Compile(schema).Errors(value)].map((e) => e.instancePath);
const ok = (schema: TSchema, value: unknown) => Compile(schema).Check(value);
/** Query strings go through Value.Convert first, as the route validator does. */
const okQuery = (schema: TSchema, value: unknown) => ok(schema, Value.Convert(schema, value));

describe('common schemas', () => {
  it('StringEnum is one string enum with a single error for a wrong value', () => {
    const e = StringEnum(['a', 'b']);
    expect(JSON.parse(JSON.stringify(e))).toEqual({ type: 'string', enum: ['a', 'b'] });
    expect(ok(e, 'a')).toBe(true);
    expect(paths(Type.Object({ x: e }), { x: 'c' })).toEqual(['/x']);
  });

  it('Id is 24 lowercase hex characters', () => {
    expect(ok(Id, '65a1b2c3d4e5f6a7b8c9d0e1')).toBe(true);
    expect(ok(Id, '65A1B2C3D4E5F6A7B8C9D0E1')).toBe(false);
    expect(ok(Id, 'abc')).toBe(false);
  });

  it('HexColor takes #RRGGBB only', () => {
    expect(ok(HexColor, '#a0B1c2')).toBe(true);
    expect(ok(HexColor, '#abc')).toBe(false);
    expect(ok(HexColor, 'red')).toBe(false);
  });

  it('QueryBoolean accepts true/false in any case', () => {
    for (const v of ['true', 'True', 'FALSE', 'false']) expect(ok(QueryBoolean, v)).toBe(true);
    for (const v of ['yes', '1', '', 'truee']) expect(ok(QueryBoolean, v)).toBe(false);
    expect(parseQueryBoolean('True')).toBe(true);
    expect(parseQueryBoolean('fAlSe', true)).toBe(false);
    expect(parseQueryBoolean(undefined, true)).toBe(true);
  });

  it('PaginationQuery converts and bounds page and limit', () => {
    const q = PaginationQuery(100);
    expect(okQuery(q, { page: '2', limit: '100' })).toBe(true);
    expect(okQuery(q, {})).toBe(true);
    expect(paths(q, Value.Convert(q, { limit: '101' }))).toEqual(['/limit']);
    expect(paths(q, Value.Convert(q, { page: '0' }))).toEqual(['/page']);
    expect(paths(q, Value.Convert(q, { limit: 'ten' }))).toEqual(['/limit']);
  });

  it('SortQuery accepts field and -field of the listed fields only', () => {
    const s = SortQuery(['createdAt', 'name'], '-createdAt');
    expect(ok(s, 'name')).toBe(true);
    expect(ok(s, '-createdAt')).toBe(true);
    expect(ok(s, 'password')).toBe(false);
    expect(ok(s, '--name')).toBe(false);
  });
});

const tool = { schemaId: 't1', title: 'Car', tool: 'bounding-box', color: '#ff0000' };

describe('CategorySchema', () => {
  it('accepts a full ontology, unknown properties and nulls for optional fields', () => {
    const schema = {
      tools: [{ ...tool, exportName: null, custom: { kept: true }, classifications: [] }],
      classifications: [
        {
          schemaId: 'c1',
          title: 'Weather',
          tool: 'radio',
          regex: null,
          options: [{ schemaId: 'o1', value: 'sunny', children: [{ schemaId: 'c2', title: 'x', tool: 'text' }] }],
        },
      ],
      relations: [{ schemaId: 'r1', title: 'Rel', tool: 'one-to-one' }],
      extra: 1,
    };
    expect(paths(CategorySchema, schema)).toEqual([]);
  });

  it('rejects a bad colour at /tools/0/color', () => {
    expect(paths(CategorySchema, { tools: [{ ...tool, color: '#12345' }] })).toEqual(['/tools/0/color']);
  });

  it('rejects a wrong tool kind with one enum error', () => {
    const errors = [...Compile(CategorySchema).Errors({ tools: [{ ...tool, tool: 'circle' }] })];
    expect(errors.map((e) => [e.instancePath, e.keyword])).toEqual([['/tools/0/tool', 'enum']]);
  });

  it('rejects a missing required field', () => {
    expect(paths(CategorySchema, { relations: [{ title: 'r', tool: 'group' }] })).toEqual(['/relations/0']);
  });

  it('checks classifications nested at depth 3', () => {
    const deep = { schemaId: 'd', title: 'd', tool: 'checkbox', color: 'blue' };
    const value = {
      tools: [
        {
          ...tool,
          classifications: [
            { schemaId: 'a', title: 'a', tool: 'radio', options: [{ schemaId: 'o', value: 'v', children: [deep] }] },
          ],
        },
      ],
      classifications: [
        {
          schemaId: 'b',
          title: 'b',
          tool: 'radio',
          classifications: [{ schemaId: 'c', title: 'c', tool: 'text', classifications: [{ ...deep, tool: 'nope' }] }],
        },
      ],
    };
    expect(paths(CategorySchema, value)).toEqual([
      '/tools/0/classifications/0/options/0/children/0/color',
      '/classifications/0/classifications/0/classifications/0/tool',
      '/classifications/0/classifications/0/classifications/0/color',
    ]);
  });

  it('accepts pct sizes as numbers or strings and markingTools from the enum', () => {
    const pct = { ...tool, tool: 'pct', cuboidLength: 4.5, cuboidWidth: '2', markingTools: ['cuboid'] };
    expect(paths(CategorySchema, { tools: [pct] })).toEqual([]);
    expect(paths(CategorySchema, { tools: [{ ...pct, markingTools: ['circle'] }] })).toEqual([
      '/tools/0/markingTools/0',
    ]);
  });
});

describe('Stage', () => {
  it('accepts stages with extras and rejects wrong enums', () => {
    expect(paths(Stage, { id: 'a', type: 'Label', next: ['b'], somethingNew: 1 })).toEqual([]);
    expect(paths(Stage, { id: 'a', type: 'Labelling' })).toEqual(['/type']);
    expect(paths(Stage, { id: 'w', type: 'Webhook', webhook: { url: 'https://x.test/h', method: 'GET' } })).toEqual([
      '/webhook/method',
    ]);
    const logic = { conditions: [{ type: 'Random', index: 0 }] };
    expect(paths(Stage, { id: 'l', type: 'Logic', logic })).toEqual(['/logic/conditions/0/type']);
    expect(paths(Stage, { id: 'c', type: 'Consensus', consensusConfig: { threshold: 1.2 } })).toEqual([
      '/consensusConfig/threshold',
    ]);
  });
});

describe('project, storage, envelope and payload schemas', () => {
  it('ProjectCreateRequest takes the ango alias and refuses other types', () => {
    expect(ok(ProjectCreateRequest, { name: 'P', type: 'ango' })).toBe(true);
    expect(
      ok(ProjectCreateRequest, { name: 'P', type: 'pct', pctConfig: { externalValidation: { frameNumbers: '12' } } }),
    ).toBe(true);
    expect(paths(ProjectCreateRequest, { name: 'P', type: 'video' })).toEqual(['/type']);
    expect(paths(ProjectCreateRequest, { name: '' })).toEqual(['/name']);
  });

  it('ProjectUpdateRequest has no minProperties and checks nested documents', () => {
    expect(ok(ProjectUpdateRequest, {})).toBe(true);
    expect(paths(ProjectUpdateRequest, { categorySchema: { tools: [{ ...tool, color: 'x' }] } })).toEqual([
      '/categorySchema/tools/0/color',
    ]);
    expect(paths(ProjectUpdateRequest, { stages: [{ id: 's' }] })).toEqual(['/stages/0']);
  });

  it('StorageCreateRequest and ListFilesQuery', () => {
    expect(ok(StorageCreateRequest, { name: 'S', provider: 'AWS', region: 'eu-west-1' })).toBe(true);
    expect(paths(StorageCreateRequest, { name: 'S', provider: 'DROPBOX' })).toEqual(['/provider']);
    expect(paths(StorageCreateRequest, { name: 'S', provider: 'AZURE', azureAuthType: 'OAUTH' })).toEqual([
      '/azureAuthType',
    ]);
    expect(okQuery(ListFilesQuery, { bucketName: 'b', getSignedUrls: 'True', retryOnSlowDown: 'false' })).toBe(true);
    expect(paths(ListFilesQuery, { getSignedUrls: 'yes' })).toEqual(['', '/getSignedUrls']);
  });

  it('envelopes', () => {
    expect(ok(Success(Type.Object({ n: Type.Number() })), { status: 'success', data: { n: 1 } })).toBe(true);
    expect(ok(Success(Type.Object({})), { status: 'fail', data: {} })).toBe(false);
    expect(ok(ErrorResponse, { status: 'fail', message: 'm', errors: [{ field: 'a', message: 'b' }] })).toBe(true);
    expect(ok(ErrorResponse, { status: 'oops', message: 'm' })).toBe(false);
  });

  it('WebhookPayload describes the contract payload', () => {
    const payload = {
      projectId: 'p',
      categorySchema: { tools: [{ ...tool, ocrEnabled: false }], classifications: [], relations: [] },
      asset: 'https://x.test/a.png',
      assetId: 'a',
      dataset: [],
      overlay: [],
      externalId: 'a.png',
      metadata: { width: 10, height: 20 },
      batches: ['b1'],
      batchNames: ['first'],
      task: {
        type: 'default',
        taskId: 't',
        stage: 'Webhook',
        stageId: 'w',
        stageName: 'Webhook',
        updatedAt: '2024-01-01T00:00:00.000Z',
        updatedBy: 'a@x.test',
        duration: 1,
        idleDuration: 0,
        totalDuration: 1,
        totalIdleDuration: 0,
        tools: [
          {
            'bounding-box': { x: 1, y: 2, width: 3, height: 4 },
            objectId: 'o',
            schemaId: 't1',
            title: 'Car',
            classifications: [],
            metadata: { createdAt: '2024-01-01T00:00:00.000Z', createdBy: 'a@x.test', createdIn: 'Label' },
          },
        ],
        classifications: [],
        relations: [],
        stageHistory: [
          {
            _id: 'h',
            stageId: 'Label',
            duration: 1,
            idleDuration: 0,
            completedAt: '2024-01-01T00:00:00.000Z',
            taskHistory: 'h',
            completedBy: 'a@x.test',
            submittedBy: 'a@x.test',
            consensusId: null,
            isSkipped: false,
          },
        ],
        brushDataUrl: null,
        medicalBrushDataUrl: null,
      },
    };
    expect(paths(WebhookPayload, payload)).toEqual([]);
    expect(paths(WebhookPayload, { ...payload, task: { ...payload.task, tools: [{ objectId: 'o' }] } })).toEqual([
      '/task/tools/0',
    ]);
  });
});
