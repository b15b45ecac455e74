import type { Browser, BrowserContext } from 'playwright-core';
import { newContext } from './browser.js';

/**
 * A browser profile with a console session: the API key is pasted once into POST /v2/session,
 * and the profile keeps the session cookie the answer sets (the request shares the profile's
 * cookies). Tests of the sign-in form itself live with the sign-in pages.
 */
export async function signedInContext(browser: Browser, baseURL: string, apiKey: string): Promise<BrowserContext> {
  const context = await newContext(browser, baseURL);
  const res = await context.request.post('/v2/session', { data: { apiKey } });
  if (!res.ok()) throw new Error(`sign-in failed: ${res.status()} ${await res.text()}`);
  return context;
}
