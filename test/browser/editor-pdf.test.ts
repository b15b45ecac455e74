import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { type AssetServer, serveAssets } from './helpers/editor-assets.js';
import { canvasView, dragFrom, signInWithKey, startStage } from './helpers/editor-page.js';
import { signInAsOwner } from './helpers/sign-in.js';

/*
 * The PDF editor, with a real mouse and keyboard, on PDFs PyMuPDF makes here: two words selected
 * on page 2 (reached with the Page input) are marked as a clause, stored as two rects on
 * `pageNumber` 2 with their text, each within a point of where PyMuPDF put the word; an area
 * dragged with Alt held on page 1 is stored with no rects and the dragged rectangle. A box drawn
 * on page 3 in the page's image editor is stored with `page` 2 and the dragged rectangle in PDF
 * points, and shows on page 3 only, in both views, when the task is opened again. A PDF whose
 * OpenAction is JavaScript opens with the script never run; a locked and a broken PDF say why
 * in words, and the answer saved before is kept.
 */

const engine = ENGINES[0] ?? 'sqlite';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Rect = [number, number, number, number];

describe('the PDF editor', () => {
  let server: ConsoleServer;
  let assets: AssetServer;
  let browser: Browser;
  let context: BrowserContext;
  let labelerKey = '';
  let projectId = '';
  const tasks: Record<string, string> = {};
  let words: { page: number; word: string; rect: Rect }[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-pdf-'));

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await server.call(method, url, body === undefined ? {} : { body });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().data as Json;
  };

  beforeAll(async () => {
    const made = execFileSync('/usr/bin/python3', [path.resolve('test/helpers/python/make_pdfs.py'), dir], {
      encoding: 'utf8',
    });
    words = (JSON.parse(made) as { words: typeof words }).words;
    const file = (name: string) => ({ type: 'application/pdf', body: fs.readFileSync(path.join(dir, name)) });
    assets = await serveAssets({
      '/words.pdf': file('words.pdf'),
      '/script.pdf': file('script.pdf'),
      '/locked.pdf': file('locked.pdf'),
      '/broken.pdf': file('broken.pdf'),
      '/boxes.pdf': file('words.pdf'),
      '/pages.pdf': file('words.pdf'),
    });
    server = await startConsoleServer(engine);
    labelerKey = await server.addUser('labeler@example.com');
    projectId = ((await api('POST', '/v2/project', { name: 'Contracts' })).project as Json)._id as string;
    await api('POST', `/v2/project/${projectId}`, {
      categorySchema: {
        tools: [
          { schemaId: 'clause', title: 'Clause', tool: 'pdf', color: '#1570ef', shortcutKey: 'c' },
          { schemaId: 'figure', title: 'Figure', tool: 'pdf', color: '#d92d20', shortcutKey: 'f' },
          { schemaId: 'seal', title: 'Seal', tool: 'bounding-box', color: '#12b76a', shortcutKey: 's' },
          { schemaId: 'logo', title: 'Logo', tool: 'pdf', color: '#7a5af8', shortcutKey: 'l', areaImage: true },
        ],
        classifications: [
          {
            schemaId: 'doctype',
            title: 'Document type',
            tool: 'radio',
            options: [
              { schemaId: 'lease', value: 'Lease' },
              { schemaId: 'deed', value: 'Deed' },
            ],
          },
          {
            schemaId: 'content',
            title: 'Page content',
            tool: 'radio',
            frameSpecific: true,
            options: [
              { schemaId: 'terms', value: 'Terms' },
              { schemaId: 'signatures', value: 'Signatures' },
            ],
          },
        ],
      },
      stages: [
        { id: 'Start', type: 'Start', next: ['Label'] },
        { id: 'Label', name: 'Label', type: 'Label', next: ['Complete'] },
        { id: 'Complete', type: 'Complete', next: [] },
      ],
    });
    await api('POST', `/v2/project/${projectId}/assigned`, { assignees: ['labeler@example.com'], role: 'Labeler' });
    const res = await api('POST', `/v2/project/${projectId}/cloud`, {
      assets: [
        ...['words', 'script', 'locked', 'broken'].map((name) => ({
          data: `${assets.url}/${name}.pdf`,
          externalId: `${name}.pdf`,
        })),
        { data: `${assets.url}/boxes.pdf`, externalId: 'boxes.pdf', metadata: { pageTotal: 3 } },
        { data: `${assets.url}/pages.pdf`, externalId: 'pages.pdf', metadata: { pageTotal: 3 } },
      ],
    });
    for (const a of res.assets as { externalId: string; taskId: string }[]) tasks[a.externalId] = a.taskId;
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await assets?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const open = async (page: Page, name: string) => {
    // Held by the labeler whatever the tests before did: closing an editor gives an untouched
    // task back to the queue. A task no longer in Label stays where it is (read-only).
    await server.call('POST', '/v2/task/assign', {
      body: { project: projectId, tasks: [tasks[name]], stage: 'Label', user: 'labeler@example.com' },
    });
    await page.goto(`/work/tasks/${tasks[name]}`);
    await page.getByRole('document', { name: 'PDF pages' }).waitFor();
  };

  const pageShown = (page: Page) => page.getByLabel('Page shown').getAttribute('data-page').then(Number);
  const objectsHeading = (page: Page) => page.getByRole('heading', { name: /^Objects \(/ }).textContent();

  /** Whether the screen between two points holds a dark pixel (a letter's ink). */
  const darkIn = async (page: Page, [x1, y1]: [number, number], [x2, y2]: [number, number]) => {
    const clip = { x: Math.round(x1), y: Math.round(y1), width: Math.round(x2 - x1), height: Math.round(y2 - y1) };
    const shot = PNG.sync.read(await page.screenshot({ clip }));
    for (let i = 0; i < shot.data.length; i += 4)
      if (shot.data[i]! + shot.data[i + 1]! + shot.data[i + 2]! < 200) return true;
    return false;
  };

  /**
   * The text view's pages, each scrolled to with the Page input: how many image-tool objects
   * each draws, and that the one with a box shows the Seal tool's green on the box's top edge.
   */
  const shapesOnPages = async (page: Page, expected: number[]) => {
    const input = page.getByLabel('Page', { exact: true });
    for (const [index, count] of expected.entries()) {
      await input.fill(String(index + 1));
      await input.press('Enter');
      const shapes = page.locator(`.pdf-page[data-page="${index}"] canvas.pdf-shapes`);
      await expect.poll(() => shapes.getAttribute('data-shapes')).toBe(String(count));
      if (!count) continue;
      const region = (await page.getByRole('region', { name: `Page ${index + 1}` }).boundingBox())!;
      const scale = region.width / 612;
      const x = region.x + 200 * scale;
      const y = region.y + 300 * scale;
      const shot = PNG.sync.read(
        await page.screenshot({ clip: { x: Math.round(x), y: Math.round(y) - 2, width: 1, height: 5 } }),
      );
      const greens = [0, 1, 2, 3, 4].filter((r) => {
        const [red, green, blue] = [shot.data[r * 4]!, shot.data[r * 4 + 1]!, shot.data[r * 4 + 2]!];
        return green > 140 && red < 90 && blue < 150;
      });
      expect(greens.length, `the box's edge on page ${index + 1}`).toBeGreaterThan(0);
    }
  };

  /**
   * Marks an area of a page (counted from 1) with a tool as a person does: the tool's button,
   * then a drag with Alt held between two points of the page (PDF points). Answers the page's
   * scale on the screen.
   */
  const altDrag = async (
    page: Page,
    pageNumber: number,
    tool: string,
    from: [number, number],
    to: [number, number],
  ) => {
    await page.getByRole('button', { name: new RegExp(`^Mark as ${tool}`) }).click();
    await page.getByRole('status').filter({ hasText: 'hold Alt and drag on a page' }).waitFor();
    // Measured once the hint is shown: a hint that wraps the toolbar moves the pages down.
    const box = (await page.getByRole('region', { name: `Page ${pageNumber}` }).boundingBox())!;
    const scale = box.width / 612;
    const at = ([x, y]: number[]) => [box.x + x! * scale, box.y + y! * scale] as const;
    await page.keyboard.down('Alt');
    await page.mouse.move(...at(from));
    await page.mouse.down();
    await page.mouse.move(...at([(from[0]! + to[0]!) / 2, (from[1]! + to[1]!) / 2]), { steps: 5 });
    await page.mouse.move(...at(to), { steps: 5 });
    await page.mouse.up();
    await page.keyboard.up('Alt');
    return scale;
  };

  /** Where a word of the text layer is on the screen, found as the browser lays it out. */
  const wordBox = (page: Page, pageIndex: number, word: string) =>
    page.evaluate<{ left: number; top: number; right: number; bottom: number } | null>(`(() => {
      const layer = document.querySelector('.pdf-page[data-page="${pageIndex}"] .textLayer');
      if (!layer) return null;
      const walker = document.createTreeWalker(layer, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.data.indexOf(${JSON.stringify(word)});
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + ${word.length});
        const r = range.getBoundingClientRect();
        return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      }
      return null;
    })()`);

  it('marks two selected words on page 2 and an Alt-dragged area on page 1', async () => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await startStage(page, 'Label', 'Contracts');
    await page.getByRole('document', { name: 'PDF pages' }).waitFor();
    expect(page.url()).toContain(tasks['words.pdf']);

    // Page 2 by the Page input, as a person types it.
    const pageInput = page.getByLabel('Page', { exact: true });
    await pageInput.fill('2');
    await pageInput.press('Enter');
    await expect.poll(() => pageInput.inputValue()).toBe('2');
    await expect.poll(() => wordBox(page, 1, 'thirty')).not.toBeNull();

    // Select "within thirty" by dragging across it, then mark it with the toolbar's button.
    const from = (await wordBox(page, 1, 'within'))!;
    const to = (await wordBox(page, 1, 'thirty'))!;
    const y = (from.top + from.bottom) / 2;
    await page.mouse.move(from.left + 1, y);
    await page.mouse.down();
    await page.mouse.move((from.left + to.right) / 2, y, { steps: 5 });
    await page.mouse.move(to.right - 1, y, { steps: 5 });
    await page.mouse.up();
    await page.getByRole('button', { name: /^Mark as Clause/ }).click();
    await expect.poll(() => page.locator('.pdf-page[data-page="1"] .pdf-mark').count()).toBe(2);
    await screenshot(page, 'editor-pdf-words');

    // An area on page 1: Alt held while dragging, with the Figure tool chosen by its button.
    await pageInput.fill('1');
    await pageInput.press('Enter');
    await altDrag(page, 1, 'Figure', [300, 300], [450, 420]);
    await screenshot(page, 'editor-pdf-area');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks['words.pdf'] as string));

    const task = (await api('GET', `/v2/task/${tasks['words.pdf']}`)).task as Json;
    const [clause, figure] = task.answer.tools as [Json, Json];
    expect(clause.schemaId).toBe('clause');
    expect(clause.pdf.position.pageNumber, JSON.stringify(task.answer.tools)).toBe(2);
    expect(clause.pdf.content).toEqual({ text: 'within thirty' });
    const expected = ['within', 'thirty'].map((w) => words.find((x) => x.page === 1 && x.word === w)!.rect);
    expect(clause.pdf.position.rects, JSON.stringify(clause.pdf)).toHaveLength(2);
    (clause.pdf.position.rects as Json[]).forEach((r, i) => {
      const [x1, y1, x2, y2] = expected[i]!;
      // Horizontally the word as laid out; vertically the text layer's line box holds the word's.
      expect(Math.abs(r.x1 - x1)).toBeLessThan(1.5);
      expect(Math.abs(r.x2 - x2)).toBeLessThan(1.5);
      expect(r.y1).toBeLessThan(y2);
      expect(r.y2).toBeGreaterThan(y1);
      expect([r.width, r.height]).toEqual([612, 792]);
    });
    expect(clause.pdf.position.boundingRect.x1).toBeCloseTo(clause.pdf.position.rects[0].x1, 5);
    expect(clause.pdf.position.boundingRect.x2).toBeCloseTo(clause.pdf.position.rects[1].x2, 5);

    expect(figure.schemaId).toBe('figure');
    expect(figure.pdf.position.pageNumber).toBe(1);
    expect(figure.pdf.position.rects).toEqual([]);
    // The Figure tool does not ask for the area's picture.
    expect(figure.pdf.content).toEqual({});
    const area = figure.pdf.position.boundingRect as Json;
    for (const [got, want] of [
      [area.x1, 300],
      [area.y1, 300],
      [area.x2, 450],
      [area.y2, 420],
    ] as [number, number][]) {
      expect(Math.abs(got - want)).toBeLessThan(1.5);
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pins a reviewer's issues on their page: one on the clause's mark, one at a point of page 1", async () => {
    const taskId = tasks['words.pdf'] as string;
    const [clause] = (await api('GET', `/v2/task/${taskId}`)).task.answer.tools as [Json];
    await api('POST', '/v2/issues', { labelTask: taskId, content: 'Clause too short', objectId: clause.objectId });
    const atPoint = (
      await api('POST', '/v2/issues', { labelTask: taskId, content: 'Logo missing', position: '[100, 120]', page: 0 })
    ).issue as Json;
    await api('POST', `/v2/issues/${atPoint._id}`, { status: 'Resolved' });

    const owner = await newContext(browser, server.url);
    const page = await owner.newPage();
    await signInAsOwner(page, server);
    // Errors counted from here: before signing in the console asks for a session it has not.
    const errors = pageErrors(page);
    await page.goto(`/work/tasks/${taskId}`);
    await page.getByRole('document', { name: 'PDF pages' }).waitFor();
    // The clause's pin, open (red), in the middle of its mark on page 2.
    const open = page.locator('.pdf-page[data-page="1"] .pdf-pin');
    await expect.poll(() => open.count()).toBe(1);
    expect(await open.textContent()).toBe('1');
    expect(await open.getAttribute('class')).toBe('pdf-pin');
    const pin = (await open.boundingBox())!;
    const marks: number[][] = [];
    for (const mark of await page.locator('.pdf-page[data-page="1"] .pdf-mark').all()) {
      const b = (await mark.boundingBox())!;
      marks.push([b.x, b.y, b.x + b.width, b.y + b.height]);
    }
    const [left, top, right, bottom] = [
      Math.min(...marks.map((m) => m[0]!)),
      Math.min(...marks.map((m) => m[1]!)),
      Math.max(...marks.map((m) => m[2]!)),
      Math.max(...marks.map((m) => m[3]!)),
    ];
    expect(Math.abs(pin.x + pin.width / 2 - (left + right) / 2)).toBeLessThan(2);
    expect(Math.abs(pin.y + pin.height / 2 - (top + bottom) / 2)).toBeLessThan(2);
    // The point's pin, resolved (green), on page 1 only.
    const resolved = page.locator('.pdf-page[data-page="0"] .pdf-pin');
    await expect.poll(() => resolved.count()).toBe(1);
    expect(await resolved.textContent()).toBe('2');
    expect(await resolved.getAttribute('class')).toBe('pdf-pin resolved');
    expect(await page.locator('.pdf-pin').count()).toBe(2);
    await resolved.scrollIntoViewIfNeeded();
    await screenshot(page, 'editor-pdf-pins');
    expect(errors).toEqual([]);
    await owner.close();
  });

  it('draws a box on page 3 in the image editor, stored with page 2, shown on page 3 only', async () => {
    // A browser of its own, signed in as the labeler: the test runs alone as well.
    const labeler = await newContext(browser, server.url);
    const page = await labeler.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await open(page, 'boxes.pdf');
    await page.getByRole('button', { name: 'Draw on this page' }).click();
    const pageInput = page.getByLabel('Page', { exact: true });
    await pageInput.fill('3');
    await pageInput.press('Enter');
    await expect.poll(() => pageShown(page)).toBe(2);
    // The canvas is the page's points: 612 x 792 for US Letter.
    await expect.poll(() => page.getByTestId('editor-canvas').getAttribute('data-ready')).toBe('true');
    const view = await canvasView(page);
    const canvasBox = (await page.getByTestId('editor-canvas').boundingBox())!;
    expect(view.screen([612, 792])[0] - view.screen([0, 0])[0]).toBeLessThanOrEqual(canvasBox.width + 1);
    // Page 3's sentence, drawn by pdf.js, is dark where PyMuPDF put its first word.
    const signed = words.find((w) => w.page === 2 && w.word === 'Signed')!.rect;
    expect(await darkIn(page, view.screen([signed[0], signed[1]]), view.screen([signed[2], signed[3]]))).toBe(true);

    await page.getByRole('button', { name: /^Seal tool/ }).click();
    await dragFrom(page, [100, 300], [300, 360]);
    await page.getByRole('button', { name: 'Select tool' }).click();
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');
    await screenshot(page, 'editor-pdf-box');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => pageShown(page)).toBe(1);
    await expect.poll(() => objectsHeading(page)).toBe('Objects (0)');

    // Back in the text, at page 2 where the image editor was: the box is drawn on page 3, in the tool's colour, and on no other page.
    await page.getByRole('button', { name: 'Select text' }).click();
    await page.getByRole('document', { name: 'PDF pages' }).waitFor();
    await expect.poll(() => page.getByLabel('Page', { exact: true }).inputValue()).toBe('2');
    await shapesOnPages(page, [0, 0, 1]);

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks['boxes.pdf'] as string));
    const task = (await api('GET', `/v2/task/${tasks['boxes.pdf']}`)).task as Json;
    expect(task.answer.tools).toHaveLength(1);
    const [seal] = task.answer.tools as [Json];
    expect(seal.schemaId).toBe('seal');
    expect(seal.page).toBe(2);
    const drawn = seal['bounding-box'] as Json;
    for (const [got, want] of [
      [drawn.x, 100],
      [drawn.y, 300],
      [drawn.width, 200],
      [drawn.height, 60],
    ] as [number, number][]) {
      expect(Math.abs(got - want), JSON.stringify(drawn)).toBeLessThan(1.5);
    }
    expect(errors).toEqual([]);
    await labeler.close();

    // Opened again (by the owner: the task is complete), the box is on page 3 only.
    const owner = await newContext(browser, server.url);
    const again = await owner.newPage();
    await signInAsOwner(again, server);
    await again.goto(`/work/tasks/${tasks['boxes.pdf']}`);
    await again.getByRole('document', { name: 'PDF pages' }).waitFor();
    await shapesOnPages(again, [0, 0, 1]);
    await screenshot(again, 'editor-pdf-box-text');
    const input = again.getByLabel('Page', { exact: true });
    await input.fill('1');
    await input.press('Enter');
    await again.getByRole('button', { name: 'Draw on this page' }).click();
    await expect.poll(() => pageShown(again)).toBe(0);
    await expect.poll(() => objectsHeading(again)).toBe('Objects (0)');
    await again.keyboard.press('End');
    await expect.poll(() => pageShown(again)).toBe(2);
    await expect.poll(() => objectsHeading(again)).toBe('Objects (1)');
    await owner.close();
    // Two browsers and a dozen page turns: minutes on a loaded machine.
  }, 300_000);

  it("answers a per-page question page by page, the document's once, and keeps a Logo area's picture", async () => {
    const labeler = await newContext(browser, server.url);
    const page = await labeler.newPage();
    const errors = pageErrors(page);
    await signInWithKey(page, labelerKey);
    await open(page, 'pages.pdf');
    const note = page.getByText('“Page content” is answered for each page');
    await expect.poll(() => note.textContent()).toContain("page 1's");
    await page.getByRole('radio', { name: 'Lease' }).check();
    await page.getByRole('radio', { name: 'Terms' }).check();

    // Page 3: its own answer, the document's kept.
    const pageInput = page.getByLabel('Page', { exact: true });
    await pageInput.fill('3');
    await pageInput.press('Enter');
    await expect.poll(() => note.textContent()).toContain("page 3's");
    expect(await page.getByRole('radio', { name: 'Terms' }).isChecked()).toBe(false);
    expect(await page.getByRole('radio', { name: 'Lease' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: 'Signatures' }).check();

    // A Logo area over page 3's sentence: its picture is kept.
    await expect.poll(() => wordBox(page, 2, 'Signed')).not.toBeNull();
    const scale = await altDrag(page, 3, 'Logo', [60, 220], [330, 260]);
    await expect.poll(() => page.locator('.pdf-page[data-page="2"] .pdf-mark').count()).toBe(1);

    // In the image editor the page shown is page 3 with its answer; page 2 has none yet.
    await page.getByRole('button', { name: 'Draw on this page' }).click();
    await expect.poll(() => pageShown(page)).toBe(2);
    expect(await page.getByRole('radio', { name: 'Signatures' }).isChecked()).toBe(true);
    await expect.poll(() => objectsHeading(page)).toBe('Objects (1)');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => note.textContent()).toContain("page 2's");
    // The Logo mark is on page 3 only.
    await expect.poll(() => objectsHeading(page)).toBe('Objects (0)');
    expect(await page.getByRole('radio', { name: 'Signatures' }).isChecked()).toBe(false);
    await page.getByRole('radio', { name: 'Terms' }).check();
    await screenshot(page, 'editor-pdf-page-questions');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.waitForURL((u) => !u.pathname.includes(tasks['pages.pdf'] as string));
    const task = (await api('GET', `/v2/task/${tasks['pages.pdf']}`)).task as Json;
    const answers = (task.answer.classifications as Json[]).map((c) => [c.schemaId, c.answer, c.page]);
    expect(answers.sort((a, b) => `${a[0]}${a[2]}`.localeCompare(`${b[0]}${b[2]}`))).toEqual([
      ['content', 'terms', 0],
      ['content', 'terms', 1],
      ['content', 'signatures', 2],
      ['doctype', 'lease', undefined],
    ]);
    const [logo] = task.answer.tools as [Json];
    expect(logo.pdf.position.pageNumber).toBe(3);
    const image = logo.pdf.content.image as string;
    expect(image).toMatch(/^data:image\/png;base64,/);
    // The picture is the area as shown: its size in proportion to 270 x 40 points, and it holds
    // the sentence's ink.
    const png = PNG.sync.read(Buffer.from(image.split(',')[1]!, 'base64'));
    expect(Math.abs(png.width / png.height - 270 / 40)).toBeLessThan(0.2);
    expect(Math.abs(png.width - 270 * scale)).toBeLessThan(4);
    let ink = 0;
    for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! + png.data[i + 1]! + png.data[i + 2]! < 200) ink++;
    expect(ink).toBeGreaterThan(50);
    expect(errors).toEqual([]);
    await labeler.close();
    // Two browsers and a dozen page turns: minutes on a loaded machine.
  }, 300_000);

  it('opens a PDF carrying JavaScript without running it', async () => {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await open(page, 'script.pdf');
    await expect.poll(() => wordBox(page, 0, 'script')).not.toBeNull();
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('says in words why a locked or broken PDF does not open, and keeps the task workable', async () => {
    // The owner reads any task's page (these two are nobody's yet).
    const owner = await newContext(browser, server.url);
    const page = await owner.newPage();
    await signInAsOwner(page, server);
    const alertOf = async (name: string) => {
      await page.goto(`/work/tasks/${tasks[name]}`);
      const alert = page.getByRole('alert').filter({ hasText: 'The PDF could not be opened' });
      await alert.waitFor();
      return alert.textContent();
    };
    expect(await alertOf('locked.pdf')).toContain('it is protected by a password');
    const broken = await alertOf('broken.pdf');
    expect(broken).toMatch(/not a PDF, or it is damaged|could not be read/);
    expect(broken).toContain('The answer saved so far is kept.');
    // The questions and the stage's buttons stay.
    await page.getByRole('button', { name: 'Submit', exact: true }).waitFor();
    await screenshot(page, 'editor-pdf-broken');
    await owner.close();
  });
});
