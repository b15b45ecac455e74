import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateClientSchema, SCHEMA_FILE } from '../../scripts/gen-client.js';

describe('the client types (src/client/schema.d.ts)', () => {
  it('match the document the server serves: run `npm run gen:client` when this fails', async () => {
    const fresh = await generateClientSchema();
    const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
    expect(committed === fresh, 'src/client/schema.d.ts is stale: run `npm run gen:client`').toBe(true);
  });
});
