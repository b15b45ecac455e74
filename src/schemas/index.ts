export * from './common.js';
export * from './envelope.js';
export * from './category-schema.js';
export * from './stage.js';
export * from './project.js';
export * from './storage.js';
export * from './webhook-payload.js';
