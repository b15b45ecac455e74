import { Type } from 'typebox';
import { StringEnum } from './common.js';

/** POST /attachments (DECISIONS section 6): extra material added to existing assets. */

export const ATTACHMENT_TYPES = ['IMAGE', 'VIDEO', 'TEXT'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const Attachment = Type.Object({
  type: StringEnum(ATTACHMENT_TYPES),
  value: Type.String({
    minLength: 1,
    maxLength: 100_000,
    description: 'IMAGE: URL of a .png/.jpg/.jpeg file; VIDEO: URL of a .mp4 file; TEXT: plain text',
  }),
});

export const AssetAttachments = Type.Object({
  externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'finds the asset first' })),
  data: Type.Optional(
    Type.String({ minLength: 1, maxLength: 4096, description: "the asset's URL, when no externalId" }),
  ),
  attachments: Type.Array(Attachment, { minItems: 1, maxItems: 1000 }),
});

export const AttachmentsRequest = Type.Object({
  project: Type.String({ minLength: 1, maxLength: 64 }),
  attachments: Type.Array(AssetAttachments, { minItems: 1, maxItems: 50_000 }),
});
