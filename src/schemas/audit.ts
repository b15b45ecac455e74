import { Type } from 'typebox';
import { Success } from './envelope.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const AuditQuerySchema = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40, description: 'records at or after this time (ISO 8601)' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'records before this time (ISO 8601)' })),
  userId: Type.Optional(Type.String({ maxLength: 64, description: 'records of this person' })),
  operation: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. project.update, member.add' })),
  targetId: Type.Optional(Type.String({ maxLength: 64, description: 'records about this project, user, key...' })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'the nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'records per page (100)' })),
});

export const AuditRecord = Type.Object({
  _id: Type.String(),
  at: Type.String({ description: 'when the change committed (ISO 8601)' }),
  organizationId: Type.String(),
  userId: Nullable(Type.String({ description: 'who made the change' })),
  actor: Nullable(
    Type.String({ description: 'the API key id, or session:<id> for the console; never the key itself' }),
  ),
  address: Nullable(Type.String({ description: 'the client address of the request' })),
  operation: Type.String(),
  target: Type.Object({ type: Type.String(), id: Type.String() }),
  projectId: Nullable(Type.String()),
  fields: Type.Array(Type.String(), { description: 'names of the fields that changed (never their values)' }),
});

export const AuditPageResponse = Success(
  Type.Object({
    records: Type.Array(AuditRecord),
    nextCursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last' })),
  }),
);
