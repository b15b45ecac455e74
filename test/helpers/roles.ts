import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** One caller per row of the roles table (DECISIONS section 2), plus an outsider and an org admin. */
export const ROLE_NAMES = ['Manager', 'Lead', 'Reviewer', 'Labeler'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
export type Caller = RoleName | 'outsider' | 'admin';

export interface RoleUsers {
  key: Record<Caller, string>;
  email: Record<Caller, string>;
}

/**
 * Makes a user for each project role (assigned on `projectId`), an organization member who is
 * not on the project (`outsider`) and an organization admin who is not on it either (`admin`).
 */
export async function addRoleUsers(t: TestApp, projectId: string, tag: string): Promise<RoleUsers> {
  const key = {} as Record<Caller, string>;
  const email = {} as Record<Caller, string>;
  for (const caller of [...ROLE_NAMES, 'outsider', 'admin'] as const) {
    email[caller] = `${caller.toLowerCase()}-${tag}@example.com`;
    key[caller] = await t.addUser(email[caller], caller === 'admin' ? 'admin' : 'member');
  }
  for (const role of ROLE_NAMES) {
    const res = await t.call('POST', `/v2/project/${projectId}/assigned`, {
      body: { assignees: [email[role]], role },
    });
    expect(res.statusCode).toBe(200);
  }
  return { key, email };
}
