import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '../../..');
/** Where browser tests keep their screenshots (CI artifacts; docs/ copies the ones it shows). */
export const SCREENSHOT_DIR = path.join(ROOT, 'test-artifacts', 'screenshots');

/** Debian's chromium; never a downloaded browser. */
export const CHROMIUM = process.env.ANNOTARY_CHROMIUM ?? '/usr/bin/chromium';

// Without the background-networking flags Chromium floods the closed network with refused
// connections at every start.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** A fresh browser profile (cookies, storage) at a desktop size. */
export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  return browser.newContext({ baseURL, viewport: { width: 1400, height: 900 }, locale: 'en-GB' });
}

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Collects what the page printed as errors; a test asserts it stayed empty. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  return errors;
}
