/**
 * The multipart bodies of the two upload operations. Their routes read the parts as a stream
 * (src/http/form-parts.ts) rather than through a body schema, so the document gets them here.
 */

const file = (description: string) => ({ type: 'string', format: 'binary', description });

export const UPLOAD_BODIES: Record<string, unknown> = {
  uploadInstructions: {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: {
            file: file('the instructions: .pdf .png .jpg .jpeg .txt .md .html .mp4'),
            storageId: { type: 'string', description: 'store the file in this storage instead of the file store' },
            bucket: { type: 'string', description: 'bucket of that storage; required with storageId' },
          },
        },
        encoding: { file: { contentType: 'application/octet-stream' } },
      },
    },
  },
  createChatAssets: {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          properties: {
            file: file('conversations: a JSON array, a JSON object or NDJSON'),
            numberOfConversations: {
              type: 'string',
              pattern: '^[0-9]+$',
              description: 'without a file: how many empty conversations to create',
            },
            namingStrategy: {
              type: 'string',
              enum: ['random', 'index', 'fileName'],
              description: 'how the external ids are made',
            },
            priority: { type: 'string', pattern: '^-?[0-9]+$', description: 'priority of the new tasks' },
          },
        },
      },
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          properties: {
            numberOfConversations: { type: 'string', pattern: '^[0-9]+$' },
            namingStrategy: { type: 'string', enum: ['random', 'index', 'fileName'] },
            priority: { type: 'string', pattern: '^-?[0-9]+$' },
          },
        },
      },
    },
  },
};
