/**
 * The PDF editor in Chromium: a 500-page document (`--pages`) against a 5-page one of the same
 * pages, measured in the same run. For each: the time from navigation to the first page drawn
 * (its canvas painted and its text layer laid out), then the frame times
 * (requestAnimationFrame deltas) while the wheel scrolls down through the pages. The goals: the
 * first page in at most 1 s, scrolling at p95 33 ms a frame or less, and the long document no
 * slower to open than the short one (pages are drawn only near the view).
 *
 * The PDFs are made by PyMuPDF (Debian's python3-fitz): US Letter pages of ten lines of text and a
 * box each. They are served from 127.0.0.1 by this process and cached by the browser after a
 * first, unmeasured open. `--rounds N` opens of each (default 5), medians kept.
 *
 *   npm run bench -- pdf-open [--pages 500] [--rounds 5] [--skip-build]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/browser/helpers/browser.js';
import { serveAssets } from '../test/browser/helpers/editor-assets.js';
import { startAnnotary } from './lib/annotary.js';
import { buildConsole, median, signedInContext, START_FRAMES, STOP_FRAMES } from './lib/chromium.js';
import { ms, num } from './lib/format.js';
import { wholeNumber } from './lib/labelled-project.js';
import { percentiles } from './lib/stats.js';
import { type BenchOptions, defineBenchmark, type Result } from './lib/types.js';

const MAKE_PDF = `
import sys, fitz
pages, out = int(sys.argv[1]), sys.argv[2]
doc = fitz.open()
for i in range(pages):
    page = doc.new_page(width=612, height=792)
    for line in range(10):
        page.insert_text((72, 100 + 50 * line), f'Page {i + 1}, line {line + 1}: the parties agree to the terms below.', fontsize=12)
    page.draw_rect(fitz.Rect(72, 620, 540, 740), color=(0.2, 0.3, 0.8), width=2)
doc.save(out)
`;

/** performance.now() once the first page's canvas is painted and its words laid out, else false. */
const FIRST_PAGE = `() => {
  const page = document.querySelector('.pdf-page[data-page="0"]');
  const canvas = page?.querySelector('canvas');
  return canvas && canvas.width > 0 && page.querySelector('.textLayer span') ? performance.now() : false;
}`;

interface Round {
  firstPageMs: number;
  frames: number[];
}

async function oneRound(page: Page, url: string, scroll: boolean): Promise<Round> {
  await page.goto(url, { waitUntil: 'commit' });
  const firstPageMs = (await (
    await page.waitForFunction(`(${FIRST_PAGE})()`, undefined, { polling: 'raf', timeout: 30_000 })
  ).jsonValue()) as number;
  if (!scroll) return { firstPageMs, frames: [] };
  const pages = page.getByRole('document', { name: 'PDF pages' });
  const box = await pages.boundingBox();
  if (!box) throw new Error('no pages');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.evaluate(START_FRAMES);
  // 60 wheel notches down, about eight pages of a 900-pixel-high window at 100 %.
  for (let i = 0; i < 60; i++) await page.mouse.wheel(0, 120);
  await page.waitForTimeout(200);
  const frames = (await page.evaluate(STOP_FRAMES)) as number[];
  return { firstPageMs, frames };
}

export default defineBenchmark({
  name: 'pdf-open',
  description: 'Chromium opens a 500-page PDF task against a 5-page one: first page drawn, then wheel-scroll frames',
  async run(opts: BenchOptions): Promise<Result> {
    const rounds = wholeNumber(opts.extra.rounds, 5, 'rounds');
    const long = wholeNumber(opts.extra.pages, 500, 'pages');
    buildConsole(opts.extra);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-bench-pdf-'));
    const files: Record<string, { type: string; body: Buffer }> = {};
    for (const pages of [5, long]) {
      const file = path.join(dir, `doc-${pages}.pdf`);
      execFileSync('/usr/bin/python3', ['-c', MAKE_PDF, String(pages), file]);
      files[`/doc-${pages}.pdf`] = { type: 'application/pdf', body: fs.readFileSync(file) };
    }
    const assets = await serveAssets(files);
    const server = await startAnnotary({ engine: opts.engine, runtime: 'built' });
    const browser = await launchBrowser();
    try {
      const { data } = await server.api<{ data: { project: { _id: string } } }>('POST', '/project', { name: 'PDFs' });
      const projectId = data.project._id;
      await server.api('POST', `/project/${projectId}`, {
        categorySchema: { tools: [{ schemaId: 'clause', title: 'Clause', tool: 'pdf' }], classifications: [] },
      });
      const imported = await server.api<{ data: { assets: { taskId: string }[] } }>(
        'POST',
        `/project/${projectId}/cloud`,
        { assets: [5, long].map((n) => ({ data: `${assets.url}/doc-${n}.pdf`, externalId: `doc-${n}.pdf` })) },
      );
      const paths = imported.data.assets.map((a) => `/work/tasks/${a.taskId}?project=${projectId}`);
      const context = await signedInContext(browser, server.url, server.apiKey);
      const page = await context.newPage();
      for (const p of paths) await oneRound(page, p, false); // warm: chunks, worker and files cached
      const results = new Map<string, Round[]>(paths.map((p) => [p, []]));
      for (let r = 0; r < rounds; r++) {
        for (const p of paths) {
          await page.goto('/work');
          results.get(p)?.push(await oneRound(page, p, true));
        }
      }
      await context.close();

      const rows: (string | number)[][] = [];
      const figures: Record<string, unknown> = {};
      for (const [i, p] of paths.entries()) {
        const pages = i === 0 ? 5 : long;
        const list = results.get(p) ?? [];
        const first = list.map((r) => r.firstPageMs);
        const frames = list.flatMap((r) => r.frames);
        const f = percentiles(frames, [50, 95, 100]);
        rows.push([
          pages,
          ms(median(first)),
          ms(Math.max(...first)),
          frames.length,
          ms(f.p50 ?? NaN),
          ms(f.p95 ?? NaN),
          ms(f.p100 ?? NaN),
        ]);
        figures[String(pages)] = { first, frames: { ...f, count: frames.length } };
      }
      const [short, big] = rows;
      return {
        table: {
          columns: [
            'pages',
            'first page, median',
            'first page, worst',
            'frames',
            'frame p50',
            'frame p95',
            'frame max',
          ],
          rows,
        },
        summary:
          `${num(long)}-page PDF: first page in ${big?.[1]} (5 pages: ${short?.[1]}); ` +
          `scrolling frames p95 ${big?.[5]} (5 pages: ${short?.[5]})`,
        data: { rounds, figures },
        notes: [
          'Headless Chromium with --disable-gpu: pages are rasterised on the CPU, on a machine other work shares.',
          'first page = navigation start to the first page painted with its text layer laid out',
        ],
      };
    } finally {
      await browser.close();
      await server.stop();
      await assets.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
});
