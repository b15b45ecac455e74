import { Type } from 'typebox';
import { FreeObject, PaginationQuery, SortQuery, StringEnum } from './common.js';

/** Issues on tasks (DECISIONS section 6). */

export const ISSUE_STATUSES = ['Open', 'Resolved'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];

export const IssueIdParams = Type.Object({ issueId: Type.String({ maxLength: 64 }) });

const Content = Type.String({ minLength: 1, maxLength: 10_000 });
const CodeText = Type.String({ minLength: 1, maxLength: 200 });
/** An error code as the [client] sends it: the code itself is `key`, the rest describes it. */
export const ErrorCodeObject = Type.Object({
  key: CodeText,
  name: Type.Optional(Type.String({ maxLength: 500 })),
  category: Type.Optional(Type.String({ maxLength: 500 })),
});
const ErrorCodes = Type.Array(Type.Union([CodeText, ErrorCodeObject]), {
  maxItems: 100,
  description: "codes of the project's errorSchema (a code, or {category, name, key}); only when errorCodesEnabled",
});
const PctDetails = Type.Unsafe<Record<string, unknown>>({
  ...FreeObject,
  description:
    'point-cloud details of the issue, kept as sent; the known keys are checked: `frame` (a frame of the asset, from 0), `position` ({x, y, z} finite numbers, metres), `objectId` and `sensor` (strings)',
});

export const CreateIssueRequest = Type.Object({
  content: Content,
  labelTask: Type.String({ minLength: 1, maxLength: 64, description: 'id of the task the issue is about' }),
  position: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'stringified [x, y] on images, or a stringified character index on text',
    }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'zero-indexed page or frame' })),
  objectId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  errorCodes: Type.Optional(ErrorCodes),
  pctDetails: Type.Optional(PctDetails),
});

export const UpdateIssueRequest = Type.Object({
  content: Type.Optional(Content),
  status: Type.Optional(StringEnum(ISSUE_STATUSES)),
  errorCodes: Type.Optional(ErrorCodes),
  pctDetails: Type.Optional(PctDetails),
});

export const CommentRequest = Type.Object({ content: Content });

const IdFilter = Type.String({ minLength: 1, maxLength: 64 });

export const ListIssuesQuery = Type.Intersect([
  PaginationQuery(100),
  Type.Object({
    project: Type.Optional(IdFilter),
    asset: Type.Optional(IdFilter),
    labelTask: Type.Optional(IdFilter),
    stage: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    createdBy: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    status: Type.Optional(StringEnum(ISSUE_STATUSES)),
    sort: Type.Optional(SortQuery(['createdAt', 'updatedAt'] as const, '-createdAt')),
  }),
]);

export const DeleteIssueQuery = Type.Object({ project: Type.Optional(IdFilter) });
