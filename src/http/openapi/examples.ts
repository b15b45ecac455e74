/**
 * Realistic examples of the main resources, as the server answers them (taken from a real run
 * of test/http/openapi-answers.test.ts, ids shortened to stay readable). The answers test checks
 * each against its schema, so an example cannot drift from the resource it shows.
 */

const ORG = '6b04bc75cdc93d2ce5e7afce';
const PROJECT = '6b04bc7acdc93d2ce5e7afd4';
const ASSET = '6b04bc7bcdc93d2ce5e7afde';
const TASK = '6b04bc7bcdc93d2ce5e7afe2';
const BATCH = '6b04bc7bcdc93d2ce5e7afdc';
const AT = '2026-11-23T22:21:47.672Z';

const categorySchema = {
  tools: [{ schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000', required: false, multiple: false }],
  classifications: [
    {
      schemaId: 'weather',
      title: 'Weather',
      tool: 'radio',
      required: true,
      options: [
        { schemaId: 'sun', value: 'Sunny' },
        { schemaId: 'rain', value: 'Rainy' },
      ],
    },
  ],
  relations: [],
};

const stage = {
  id: 'Label',
  name: 'Label',
  type: 'Label',
  next: ['Review'],
  position: { x: 400, y: 200 },
  rememberAssignee: false,
  readOnly: false,
  preventRequeue: false,
};

const answer = {
  tools: [{ schemaId: 'car', objectId: 'box-1', 'bounding-box': { x: 1, y: 2, width: 30, height: 40 } }],
  classifications: [{ schemaId: 'weather', answer: 'sun' }],
  relations: [],
};

export const EXAMPLES = {
  CategorySchema: categorySchema,
  Stage: stage,
  Project: {
    _id: PROJECT,
    name: 'Street scenes',
    description: 'Cars and lanes',
    type: 'standard',
    owner: 'admin@example.com',
    organization: ORG,
    categorySchema,
    stages: [
      { id: 'Start', name: 'Start', type: 'Start', next: ['Label'], autoForward: true },
      stage,
      { id: 'Review', name: 'Review', type: 'Review', next: ['Complete', 'Label'] },
      { id: 'Complete', name: 'Complete', type: 'Complete', next: [] },
    ],
    assignedTo: [{ assignee: 'admin@example.com', role: 'Manager' }],
    batches: [{ _id: BATCH, name: 'Morning' }],
    queueVersion: 0,
    assetCount: 4,
    benchmarkEnabled: false,
    instructions: '',
    errorCodesEnabled: false,
    errorSchema: {},
    role: 'Manager',
    deleted: false,
    createdAt: '2026-11-23T22:21:46.870Z',
    updatedAt: AT,
  },
  ProjectListItem: {
    _id: PROJECT,
    name: 'Street scenes',
    description: 'Cars and lanes',
    organization: ORG,
    createdAt: '2026-11-23T22:21:46.870Z',
  },
  Task: {
    _id: TASK,
    project: PROJECT,
    asset: { _id: ASSET, externalId: 'street-1', data: 'https://cdn.example.com/street/1.jpg' },
    externalId: 'street-1',
    stage: 'Label',
    stageName: 'Label',
    stageType: 'Label',
    status: 'TODO',
    assignee: 'ann@example.com',
    batches: [BATCH],
    priority: 5,
    reviewStatus: null,
    duration: 0,
    totalDuration: 4200,
    openIssuesCount: 0,
    isPreLabeled: false,
    type: 'default',
    parentTask: null,
    consensusScore: null,
    brushDataUrl: null,
    medicalBrushDataUrl: null,
    createdAt: AT,
    updatedAt: '2026-11-23T22:21:49.377Z',
    updatedBy: 'ann@example.com',
    completedAt: null,
    completedBy: null,
    answer,
  },
  Asset: {
    _id: ASSET,
    project: PROJECT,
    externalId: 'street-1',
    data: 'https://cdn.example.com/street/1.jpg',
    contextData: null,
    metadata: { width: 1920, height: 1080 },
    storage: null,
    attachments: [{ type: 'TEXT', value: 'rainy morning' }],
    batches: [BATCH],
    taskId: TASK,
    isPreLabeled: false,
    createdAt: AT,
    createdBy: 'admin@example.com',
  },
  Issue: {
    _id: '6b04bc7ecdc93d2ce5e7b001',
    project: PROJECT,
    labelTask: TASK,
    asset: ASSET,
    stage: 'Review',
    content: 'The box is loose',
    position: '[10, 20]',
    page: 0,
    objectId: 'box-1',
    errorCodes: ['loose'],
    status: 'Open',
    pctDetails: null,
    comments: [{ _id: '6b04bc7ecdc93d2ce5e7b002', content: 'Fixed it', createdBy: 'ann@example.com', createdAt: AT }],
    createdBy: 'lead@example.com',
    createdAt: AT,
    updatedAt: AT,
  },
  Storage: {
    _id: '6b04bc7acdc93d2ce5e7afd1',
    name: 'Lab bucket',
    provider: 'AWS',
    region: 'eu-central-1',
    s3AccessType: 'IAM_USER',
    publicKey: 'AKIAIOSFODNN7EXAMPLE',
    useAccelerateEndpoint: false,
    organization: ORG,
    createdBy: 'admin@example.com',
    createdAt: AT,
  },
};
