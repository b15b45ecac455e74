import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/stores.js';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js';
import { launchBrowser, newContext, pageErrors, screenshot } from './helpers/browser.js';
import { type ConsoleServer, startConsoleServer } from './helpers/console-server.js';
import { signInAsOwner } from './helpers/sign-in.js';

const engine = ENGINES[0] ?? 'sqlite';

/** The ids of the stages whose box is not wholly inside the diagram's visible area. */
function stagesOutOfView(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const pane = document.querySelector('.react-flow')?.getBoundingClientRect();
    if (!pane) return ['(no diagram)'];
    return [...document.querySelectorAll('.react-flow__node')]
      .filter((node) => {
        const r = node.getBoundingClientRect();
        return r.left < pane.left || r.top < pane.top || r.right > pane.right || r.bottom > pane.bottom;
      })
      .map((node) => node.dataset.id ?? '?');
  })()`) as Promise<string[]>;
}
/** Drags from output `index` of one stage (its dot on the right edge) onto the middle of another's box. */
async function dragOutput(page: Page, from: string, index: number, to: string): Promise<void> {
  const handle = page.locator(
    `.react-flow__node[data-id="${from}"] .react-flow__handle.source[data-handleid="${index}"]`,
  );
  const start = await handle.boundingBox();
  const end = await page.locator(`.react-flow__node[data-id="${to}"]`).boundingBox();
  if (!start || !end) throw new Error(`no output ${index} on ${from}, or no stage ${to}`);
  await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
  await page.mouse.down();
  await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2 + 12, { steps: 10 });
  await page.mouse.up();
}

/** Points along each route drawn back against the flow that fall inside a stage's box (none, when routed below them). */
function backRoutesThroughBoxes(page: Page): Promise<number> {
  return page.evaluate(`(() => {
    const boxes = [...document.querySelectorAll('.react-flow__node')].map((n) => n.getBoundingClientRect());
    let inside = 0;
    for (const path of document.querySelectorAll('.react-flow__edge.edge-reject path.react-flow__edge-path')) {
      const m = path.getScreenCTM();
      const length = path.getTotalLength();
      for (let at = 8; at < length - 8; at += 4) {
        const p = path.getPointAtLength(at);
        const x = m.a * p.x + m.c * p.y + m.e;
        const y = m.b * p.x + m.d * p.y + m.f;
        if (boxes.some((b) => x > b.left + 2 && x < b.right - 2 && y > b.top + 2 && y < b.bottom - 2)) inside++;
      }
    }
    return inside;
  })()`) as Promise<number>;
}

/** Long enough for a few rounds of the editor's 4 s polling on a busy machine. */
const LIVE = { timeout: 30_000 };

describe('the console: projects, ontology and the workflow editor', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let receiver: Receiver;
  let projectId = '';

  beforeAll(async () => {
    receiver = await startReceiver({ respond: () => ({ status: 500 }) });
    server = await startConsoleServer(engine, { worker: true, env: { ANNOTARY_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    browser = await launchBrowser();
    context = await newContext(browser, server.url);
    page = await context.newPage();
    // As a person does: the sign-in form, with the owner's password.
    await signInAsOwner(page, server, '/projects');
    errors = pageErrors(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await receiver?.close();
  });

  it('creates a project from the project list, which then finds it by name', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByText('There are no projects yet.').waitFor();
    await screenshot(page, 'console-projects-empty');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText('is required').or(page.getByText('must NOT have fewer')).first().waitFor();
    await page.getByLabel('Project name').fill('Street scenes');
    await page.getByLabel('Description').fill('Cars and signs in city streets');
    await page.getByRole('button', { name: 'Create project' }).click();
    // A new project opens on its setup checklist: the default workflow is ready, the rest is not.
    await page.waitForURL(/\/projects\/[^/]+\/setup$/);
    projectId = /\/projects\/([^/]+)\//.exec(page.url())?.[1] ?? '';
    expect(projectId).not.toBe('');
    const checklist = page.getByRole('list', { name: 'Setup checklist' });
    await checklist.waitFor();
    expect(await checklist.getByRole('heading').allTextContents()).toEqual([
      'Ontology: not done',
      'Workflow: done',
      'Assets: not done',
      'People: not done',
    ]);
    await checklist.getByText('Start → Label → Complete').waitFor();
    await page.getByRole('status').getByText('1 of 4 done.', { exact: false }).waitFor();
    await screenshot(page, 'console-setup-checklist');
    // Each item links to its page; the project's own address opens the checklist while it is not done.
    await checklist.getByRole('link', { name: 'Set up the ontology' }).click();
    await page.waitForURL(`**/projects/${projectId}/ontology`);
    await page.goto(`/projects/${projectId}`);
    await page.waitForURL(`**/projects/${projectId}/setup`);
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.getByLabel('Search projects by name').fill('STREET');
    await page.getByRole('link', { name: 'Street scenes' }).waitFor();
    await page.getByLabel('Search projects by name').fill('nothing like it');
    await page.getByText("No project's name contains “nothing like it”.").waitFor();
    await screenshot(page, 'console-projects-search');
  });

  it('sets the ontology: readable ids from titles, an untitled tool refused, the server naming a bad colour', async () => {
    await page.goto(`/projects/${projectId}/ontology`);
    // "Add tool" sits below the empty state, not over it.
    const empty = await page.getByText('No tools yet: add one for each kind of object to mark.').boundingBox();
    const add = await page.getByRole('button', { name: 'Add tool' }).boundingBox();
    if (!empty || !add) throw new Error('no empty state or no Add tool button');
    expect(add.y).toBeGreaterThanOrEqual(empty.y + empty.height);
    await page.getByRole('button', { name: 'Add tool' }).click();
    const tool1 = page.getByRole('group', { name: 'Tool 1', exact: true });
    // Kinds are offered by their names, not the contract's ids.
    expect(await tool1.getByLabel('Kind').locator('option').allTextContents()).toContain('Rotated box');
    await tool1.getByLabel('Title', { exact: true }).fill('Car');
    const car = page.getByRole('group', { name: 'Car', exact: true });
    expect(await car.getByLabel('Id', { exact: true }).inputValue()).toBe('car');
    await car.getByLabel('Colour', { exact: true }).fill('red');
    await car.getByLabel('Shortcut key').fill('c');
    // A new tool allows many objects per task; the second one is set to a single object.
    expect(await car.getByLabel('Many objects per task').isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Add tool' }).click();
    const tool2 = page.getByRole('group', { name: 'Tool 2', exact: true });
    expect(await tool2.getByLabel('Many objects per task').isChecked()).toBe(true);
    await tool2.getByLabel('Many objects per task').uncheck();
    await page.getByRole('button', { name: 'Add question', exact: true }).click();
    await page
      .getByRole('group', { name: 'Question 1', exact: true })
      .getByLabel('Title', { exact: true })
      .fill('Weather');
    const weather = page.getByRole('group', { name: 'Weather', exact: true });
    await weather.getByRole('button', { name: 'Add option to Weather' }).click();
    await weather.getByLabel('Option 1', { exact: true }).fill('Sunny');
    await weather.getByRole('button', { name: 'Add option to Weather' }).click();
    await weather.getByLabel('Option 2', { exact: true }).fill('Rainy');
    await page.getByRole('button', { name: 'Add question to Rainy' }).click();
    await page
      .getByRole('group', { name: 'Option Rainy of Weather', exact: true })
      .getByRole('group', { name: 'Question 1', exact: true })
      .getByLabel('Title', { exact: true })
      .fill('How hard?');
    await page.getByRole('button', { name: 'Add relation' }).click();
    await page
      .getByRole('group', { name: 'Relation 1', exact: true })
      .getByLabel('Title', { exact: true })
      .fill('Follows');
    // Tool 2 has no title: the form refuses before asking the server, and points at the box.
    await page.getByRole('button', { name: 'Save ontology' }).click();
    const title2 = tool2.getByLabel('Title', { exact: true });
    await expect.poll(() => title2.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').getByText('tools[1].title: a title is required').waitFor();
    expect(await page.getByText('Ontology saved.').count()).toBe(0);
    await screenshot(page, 'console-ontology-untitled');
    // Two tools of one title: the second id is told apart.
    await title2.fill('Car');
    expect(
      await page.getByRole('group', { name: 'Car', exact: true }).nth(1).getByLabel('Id', { exact: true }).inputValue(),
    ).toBe('car-2');
    await page.getByRole('group', { name: 'Car', exact: true }).nth(1).getByLabel('Title', { exact: true }).fill('Sun');
    await page.getByRole('button', { name: 'Save ontology' }).click();
    const colour = car.getByLabel('Colour', { exact: true });
    await expect.poll(() => colour.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'console-ontology-error');
    await colour.fill('#d92d20');
    // An id may be typed: it then stays as typed.
    await page.getByRole('group', { name: 'Sun', exact: true }).getByLabel('Id', { exact: true }).fill('sun-glare');
    await page.getByRole('button', { name: 'Save ontology' }).click();
    await page.getByText('Ontology saved.').waitFor();
    await screenshot(page, 'console-ontology');
    const saved = (await server.call('GET', `/v2/project/${projectId}`)).json().data.project.categorySchema;
    expect(saved.tools).toMatchObject([
      { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#d92d20', shortcutKey: 'c', multiple: true },
      { schemaId: 'sun-glare', title: 'Sun', multiple: false },
    ]);
    // The editor's own marks never reach the server.
    expect(JSON.stringify(saved)).not.toContain('__');
    const [question] = saved.classifications;
    expect(question.schemaId).toBe('weather');
    expect(question.options.map((o: { schemaId: string; value: string }) => [o.schemaId, o.value])).toEqual([
      ['sunny', 'Sunny'],
      ['rainy', 'Rainy'],
    ]);
    expect(question.options[1].children[0]).toMatchObject({ schemaId: 'how-hard', title: 'How hard?' });
    expect(saved.relations).toMatchObject([{ schemaId: 'follows', title: 'Follows', tool: 'one-to-one' }]);
    // Reopened, each tool shows its stored flag; Sun goes back to many objects and is removed again.
    await page.reload();
    expect(await car.getByLabel('Many objects per task').isChecked()).toBe(true);
    const sun = page.getByRole('group', { name: 'Sun', exact: true });
    expect(await sun.getByLabel('Many objects per task').isChecked()).toBe(false);
    await sun.getByLabel('Many objects per task').check();
    await page.getByRole('button', { name: 'Save ontology' }).click();
    await page.getByText('Ontology saved.').waitFor();
    const again = (await server.call('GET', `/v2/project/${projectId}`)).json().data.project.categorySchema;
    expect(again.tools).toMatchObject([
      { title: 'Car', multiple: true },
      { title: 'Sun', multiple: true },
    ]);
    await page.getByRole('button', { name: 'Remove tool Sun' }).click();
    await page.getByRole('button', { name: 'Save ontology' }).click();
    await page.getByText('Ontology saved.').waitFor();
    const last = (await server.call('GET', `/v2/project/${projectId}`)).json().data.project.categorySchema;
    expect(last.tools.map((t: { title: string }) => t.title)).toEqual(['Car']);
  });

  it('builds Start -> Label -> Review -> Webhook -> Complete, with the missing URL named on its field', async () => {
    await page.getByRole('link', { name: 'Workflow' }).click();
    await page.getByRole('heading', { name: 'Workflow' }).waitFor();
    await page.getByLabel('New stage type').selectOption('Review');
    await page.getByLabel('New stage name').fill('Review');
    await page.getByRole('button', { name: 'Add stage' }).click();
    await page.getByLabel('Accepted goes to').waitFor();
    await page.getByLabel('New stage type').selectOption('Webhook');
    await page.getByLabel('New stage name').fill('Notify');
    await page.getByRole('button', { name: 'Add stage' }).click();
    // Both new stages land in free slots of the flow and the view fits again: every stage's box
    // lies inside the drawn diagram (measured on the page, not computed from positions).
    await expect.poll(() => stagesOutOfView(page)).toEqual([]);
    expect(await page.locator('.react-flow__node').count()).toBe(5);
    await screenshot(page, 'console-workflow-added');
    await page.getByLabel('Next stage').selectOption({ label: 'Complete' });
    await page.getByLabel('Retries').fill('0');
    await page.getByLabel('Timeout (milliseconds)').fill('5000');
    // Label -> Review and Review's Rejected -> Label: dragged on the diagram, from an output dot
    // to anywhere on the other stage's box. Notify was added with Review selected, so it already
    // follows Review's Accepted output.
    await dragOutput(page, 'Label', 0, 'Review');
    await dragOutput(page, 'Review', 1, 'Label');
    await page.locator('.react-flow__node[data-id="Label"]').click();
    const labelNext = page.getByRole('region', { name: 'Settings of Label' }).getByLabel('Next stage');
    await expect.poll(() => labelNext.inputValue()).toBe('Review');
    await page.getByLabel('Edit stage').selectOption({ label: 'Review (Review)' });
    expect(await page.getByLabel('Accepted goes to').inputValue()).toBe('Notify');
    expect(await page.getByLabel('Rejected goes to').inputValue()).toBe('Label');
    await screenshot(page, 'console-workflow-connected');
    await page.getByRole('button', { name: 'Save workflow' }).click();
    // The webhook URL is still empty: the server names it, the form shows it on the field.
    await page.getByText('The workflow was not saved:').waitFor();
    await page.getByRole('button', { name: 'Notify' }).click();
    const url = page.getByLabel('Webhook URL');
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'console-workflow-error');
    await url.fill(receiver.url);
    // A receiver on 127.0.0.1: the form says the server refuses it unless its operator allows it.
    await page.getByText(/loopback or private address/).waitFor();
    // Dragging a stage moves it; its position is saved with the workflow. Complete goes under the
    // webhook stage that leads to it, into empty space (the screenshot is the docs' picture).
    const complete = page.locator('.react-flow__node[data-id="Complete"]');
    const before = await complete.boundingBox();
    const notify = await page.locator('.react-flow__node', { hasText: 'Notify' }).boundingBox();
    if (!before || !notify) throw new Error('the Complete or Notify stage is not drawn');
    await page.mouse.move(before.x + 20, before.y + 10);
    await page.mouse.down();
    await page.mouse.move(notify.x + 20, notify.y + notify.height + 70, { steps: 8 });
    await page.mouse.up();
    await expect.poll(async () => (await complete.boundingBox())?.y).toBeGreaterThan(before.y + 20);
    await screenshot(page, 'console-workflow-untidy');
    // Tidy up: the flow from left to right, and Rejected runs back under the boxes, never through one.
    await page.getByRole('button', { name: 'Tidy up the layout' }).click();
    const lefts = async () =>
      Promise.all(
        ['Start', 'Label', 'Review', 'Notify', 'Complete'].map(
          async (id) => (await page.locator(`.react-flow__node[data-id="${id}"]`).boundingBox())?.x ?? 0,
        ),
      );
    await expect.poll(async () => (await lefts()).every((x, i, all) => i === 0 || x > (all[i - 1] ?? 0))).toBe(true);
    await expect.poll(() => stagesOutOfView(page)).toEqual([]);
    expect(await backRoutesThroughBoxes(page)).toBe(0);
    await page.getByRole('button', { name: 'Save workflow' }).click();
    await page.getByText('Workflow saved.').waitFor();
    await screenshot(page, 'console-workflow');
    const stages = (await server.call('GET', `/v2/project/${projectId}`)).json().data.project.stages as {
      id: string;
      type: string;
      next: string[];
      position: { x: number; y: number };
      webhook?: { url: string; retryCount: number };
    }[];
    const byId = new Map(stages.map((s) => [s.id, s]));
    expect(byId.get('Start')?.next).toEqual(['Label']);
    expect(byId.get('Label')?.next).toEqual(['Review']);
    expect(byId.get('Review')?.next).toEqual(['Notify', 'Label']);
    expect(byId.get('Notify')).toMatchObject({ type: 'Webhook', next: ['Complete'] });
    expect(byId.get('Notify')?.webhook).toMatchObject({ url: receiver.url, retryCount: 0 });
    // The tidy positions were saved: along the flow, left to right.
    const xs = ['Start', 'Label', 'Review', 'Notify', 'Complete'].map((id) => byId.get(id)?.position.x ?? 0);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
  });

  it('imports three assets on the Assets page and shows them as counts on the diagram', async () => {
    await page.getByRole('link', { name: 'Assets' }).click();
    await page.getByText('No assets yet: upload files or import links with the forms.').waitFor();
    const urls = ['a', 'b', 'c'].map((n) => `https://example.com/street-${n}.jpg`).join('\n');
    await page.getByLabel('Asset URLs (one a line)').fill(urls);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Imported 3 assets.').waitFor();
    await page.getByRole('cell', { name: 'street-b.jpg', exact: true }).waitFor();
    await screenshot(page, 'console-assets');
    await page.getByRole('link', { name: 'Workflow' }).click();
    await page.getByLabel('3 tasks in Label').waitFor(LIVE);
    await screenshot(page, 'console-workflow-counts');
  });

  it('requeues on a filter from the task table; a failing webhook warns, and a re-run moves the tasks on', async () => {
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Label' });
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    await page.getByLabel('All 3 matching the filter').check();
    await page.getByLabel('Requeue to stage').selectOption({ label: 'Notify' });
    await page.getByRole('button', { name: 'Requeue' }).click();
    await page.getByText('Requeued: 3 tasks.').waitFor();
    // The receiver answers 500: the tasks stay in the Webhook stage and the editor warns.
    await page.getByRole('link', { name: 'Workflow' }).click();
    await page.getByLabel('Warning: 3 failed').waitFor(LIVE);
    await page.getByLabel('Edit stage').selectOption({ label: 'Notify (Webhook)' });
    const settings = page.getByRole('region', { name: 'Settings of Notify' });
    await settings.getByText('3 tasks failed in this stage').waitFor(LIVE);
    await settings.getByRole('table', { name: 'Webhook log' }).getByText('500').first().waitFor(LIVE);
    await screenshot(page, 'console-webhook-warning');
    receiver.respond(() => ({ status: 200 }));
    await settings.getByRole('button', { name: 'Re-run webhook' }).click();
    await settings.getByText('3 requests queued.').waitFor(LIVE);
    await page.getByLabel('3 tasks in Complete').waitFor(LIVE);
    await page.getByLabel('0 tasks in Notify').waitFor(LIVE);
    await expect.poll(() => page.getByLabel('Warning: 3 failed').count(), LIVE).toBe(0);
    await screenshot(page, 'console-webhook-recovered');
    expect(receiver.received.filter((r) => r.answered === 200)).toHaveLength(3);
  });

  it('filters and sorts the task table on the server', async () => {
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Label' });
    await page.getByText('No task matches the filter.').waitFor();
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Complete' });
    await page.getByRole('heading', { name: '3 tasks' }).waitFor();
    await page.getByRole('button', { name: 'External id' }).click();
    const ids = () => page.getByRole('table', { name: 'Tasks' }).locator('tbody tr td:nth-child(2)').allTextContents();
    await expect.poll(ids).toEqual(['street-a.jpg', 'street-b.jpg', 'street-c.jpg']);
    await page.getByRole('button', { name: 'External id ↑' }).click();
    await expect.poll(ids).toEqual(['street-c.jpg', 'street-b.jpg', 'street-a.jpg']);
    await page.getByLabel('External id', { exact: true }).fill('street-b.jpg');
    await page.getByRole('heading', { name: '1 task', exact: true }).waitFor();
    await expect.poll(ids).toEqual(['street-b.jpg']);
    await screenshot(page, 'console-tasks');
  });

  it('draws the overview charts from the real figures of the project', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    const perStage = page.getByRole('img', { name: /^Tasks per stage:/ });
    await perStage.waitFor();
    expect(await perStage.getAttribute('aria-label')).toBe(
      // Along the flow, though Complete is stored third (the workflow was saved in that order).
      'Tasks per stage: Start 0, Label 0, Review 0, Notify 0, Complete 3',
    );
    // Drawn, not only described: the SVG holds a bar per stage and the axis names them.
    await expect.poll(() => perStage.locator('svg path').count()).toBeGreaterThan(5);
    await perStage.locator('svg text', { hasText: 'Notify' }).first().waitFor();
    await page.getByRole('img', { name: 'Tasks by status: Completed 3' }).waitFor();
    await page.getByRole('img', { name: 'Assets by file type: jpg 3' }).waitFor();
    await page.getByRole('region', { name: 'Consensus scores' }).getByText('Nothing to show yet.').waitFor();
    await screenshot(page, 'console-overview');
  });

  it('fits a workflow of six stages in one row into the diagram at 1280 x 800, and a seventh added', async () => {
    const { project } = (await server.call('POST', '/v2/project', { body: { name: 'Long chain' } })).json().data as {
      project: { _id: string };
    };
    const chain = ['Start', 'Label', 'Review', 'Check', 'Notify', 'Complete'];
    const types: Record<string, string> = { Check: 'Label', Notify: 'Webhook' };
    const stages = chain.map((id, i) => ({
      id,
      name: id,
      type: types[id] ?? id,
      next: id === 'Review' ? ['Check', 'Label'] : chain[i + 1] ? [chain[i + 1]] : [],
      // One row, as the default workflow lays its stages out (300 px apart).
      position: { x: 100 + i * 300, y: 200 },
      ...(id === 'Notify' ? { webhook: { url: 'https://example.com/hook' } } : {}),
    }));
    const saved = await server.call('POST', `/v2/project/${project._id}`, { body: { stages } });
    expect(saved.statusCode, saved.body).toBe(200);
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await page.goto(`/projects/${project._id}/workflow`);
      await page.getByRole('heading', { name: 'Workflow' }).waitFor();
      await expect.poll(() => page.locator('.react-flow__node').count()).toBe(6);
      // Every stage's box inside the drawn diagram, measured on the page.
      await expect.poll(() => stagesOutOfView(page)).toEqual([]);
      await screenshot(page, 'console-workflow-six-stages');
      await page.getByLabel('New stage type').selectOption('Hold');
      await page.getByLabel('New stage name').fill('Parked');
      await page.getByRole('button', { name: 'Add stage' }).click();
      await expect.poll(() => page.locator('.react-flow__node').count()).toBe(7);
      await expect.poll(() => stagesOutOfView(page)).toEqual([]);
      await screenshot(page, 'console-workflow-seven-stages');
    } finally {
      await page.setViewportSize({ width: 1400, height: 900 });
      // The next test goes on with the first project.
      await page.goto(`/projects/${projectId}/overview`);
    }
  });

  it('keeps settings and members, with the server naming a bad value', async () => {
    await server.addUser('lead@example.com');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Labelers may skip tasks').check();
    await page.getByLabel('Idle timeout (seconds)').fill('600');
    await page.getByLabel('Project name').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const name = page.getByLabel('Project name');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('Street scenes (city)');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByLabel('Member e-mail').fill('lead@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('Reviewer');
    await page.getByRole('button', { name: 'Add or change role' }).click();
    await page.getByRole('cell', { name: 'lead@example.com' }).waitFor();
    await screenshot(page, 'console-settings');
    const project = (await server.call('GET', `/v2/project/${projectId}`)).json().data.project;
    expect(project).toMatchObject({ name: 'Street scenes (city)', taskSkipEnabled: true, idleTimeout: 600 });
    expect(project.assignedTo).toContainEqual({ assignee: 'lead@example.com', role: 'Reviewer' });
    // The switcher in the top bar knows the new name.
    await expect
      .poll(() => page.getByLabel('Project', { exact: true }).locator('option:checked').textContent())
      .toBe('Street scenes (city)');
    // The four refusals this file provoked on purpose (empty name twice, colour, webhook URL) are
    // the browser's only complaints.
    const refused = 'Failed to load resource: the server responded with a status of 400 (Bad Request)';
    expect(errors).toEqual([refused, refused, refused, refused]);
  });
});
