import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { REPO_ROOT } from './annotary.js';

/*
 * What the benchmarks that drive the console in Chromium share: building the console, a signed-in
 * context, and frame times read in the page. Page functions are text: they run in the browser,
 * whose DOM this file's types do not know.
 */

/**
 * Builds the console with vite into dist/web, whatever an earlier build left there, unless
 * `--skip-build` says dist/web is already the code's.
 */
export function buildConsole(extra: Readonly<Record<string, string>> = {}): void {
  if (extra['skip-build'] !== undefined) return;
  process.stdout.write('  building the console (vite build) into dist/web\n');
  execFileSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
}

/**
 * A browser context signed in to the console with an API key. bypassCSP: the benchmarks' page
 * functions are given as text, which the console's CSP (no eval) refuses.
 */
export async function signedInContext(browser: Browser, url: string, apiKey: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: url, viewport: { width: 1400, height: 900 }, bypassCSP: true });
  const signIn = await context.newPage();
  await signIn.goto('/signin');
  await signIn.getByRole('button', { name: 'Use an API key instead' }).click();
  await signIn.getByLabel('API key').fill(apiKey);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await signIn.waitForURL((u) => u.pathname !== '/signin');
  await signIn.close();
  return context;
}

/**
 * A page function of `n`: performance.now() once the editor's canvas holds its image and the
 * object list says it has `n` objects (ready to draw), else false.
 */
export const EDITOR_READY = `(n) => {
  const canvas = document.querySelector('[data-testid="editor-canvas"]');
  const heading = document.getElementById('objects-title');
  return canvas?.getAttribute('data-ready') === 'true' && heading?.textContent === 'Objects (' + n + ')'
    ? performance.now()
    : false;
}`;

/** Records every requestAnimationFrame delta until STOP_FRAMES. */
export const START_FRAMES = `(() => {
  window.frames_ = [];
  window.stop_ = false;
  let last = 0;
  const loop = (t) => {
    window.frames_.push(t - last);
    last = t;
    if (!window.stop_) requestAnimationFrame(loop);
  };
  requestAnimationFrame((t) => {
    last = t;
    requestAnimationFrame(loop);
  });
})()`;
export const STOP_FRAMES = `(() => {
  window.stop_ = true;
  return window.frames_;
})()`;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
