import type { Browser, BrowserContext } from 'playwright-core';
import { newContext } from './browser.js';

/**
 * A browser profile signed in with an API key, the way the console keeps a pasted key: in the
 * tab's sessionStorage. (Password sign-in arrives with the console-auth branch; its tests sign
 * in through the form.)
 */
export async function signedInContext(browser: Browser, baseURL: string, apiKey: string): Promise<BrowserContext> {
  const context = await newContext(browser, baseURL);
  await context.addInitScript((key: string) => sessionStorage.setItem('annotary.apiKey', key), apiKey);
  return context;
}
