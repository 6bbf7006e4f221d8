/**
 * The activity charts (docs/API.md §4.11) in Chromium against the local stack: the overview
 * draws operations per hour and per day, the most active agents stacked and the rest as
 * "other", with a freeze, an unfreeze and a revocation marked; an agent's page draws its own.
 * The numbers table behind each chart holds exactly what was submitted, per bucket. The chart
 * module (and its charting library) is fetched only by a page that shows a chart. Every page
 * passes axe-core (test/support/browser.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../../test/support/identity-flows.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../../test/support/ledger-fixtures.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { checkPage, launchChromium } from '../../test/support/browser.js';

const CONSOLE = fileURLToPath(new URL('..', import.meta.url));
/** signedInUser's password (test/support/identity-flows.ts). */
const PASSWORD = 'password-1234';
/** Each test on a loaded machine: page loads, axe and screenshots take seconds each. */
const TEST_TIMEOUT = 240_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

let dist: string;
beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'console-dist-'));
  await build({ root: CONSOLE, configLoader: 'runner', logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
}, 120_000);
afterAll(async () => {
  if (dist) await rm(dist, { recursive: true, force: true });
});
// Epochs of one second: the charts count sealed history from the epochs' counts.
const stack = useLedgerStack(() => ({ env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200' }, consoleDir: dist }));

/** Operations per agent, most first: seven agents, so five series and two as other. */
const PLAN = [3, 2, 2, 1, 1, 1, 1];
const agents = PLAN.map(() => uniqueAgentId('chart-bot'));
let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: Api;
let created: { agent_id: string; created_at: number }[];
/** Every script the page fetched, by path. */
const scripts: string[] = [];

beforeAll(async () => {
  const owner = await signedInUser(stack.baseUrl, 'Charting');
  const onboarded = await stack.call('POST', '/v1/onboarding/organization', { token: owner.session, body: { org_name: 'Charts' } });
  expect(onboarded.status).toBe(201);
  const minted = await stack.call('POST', '/v1/auth/token', { token: owner.session, body: {} });
  api = apiClient(stack.baseUrl, minted.json.token);
  const chains: ClientChain[] = [];
  for (const agentId of agents) {
    const key = newKey('k1');
    await registerAgent(api, agentId, [key]);
    chains.push(new ClientChain(onboarded.json.org_id, agentId, key));
  }
  await Promise.all(chains.map(async (chain, i) => {
    for (let n = 0; n < PLAN[i]!; n++) expect((await chain.submit(api)).res.status).toBe(200);
  }));
  expect((await api('POST', `/v1/agents/${agents[0]}/freeze`, { reason: 'odd tool use' })).status).toBe(200);
  expect((await api('POST', `/v1/agents/${agents[0]}/unfreeze`, { reason: 'explained' })).status).toBe(200);
  expect((await api('POST', `/v1/agents/${agents[6]}/revoke`, { reason: 'retired' })).status).toBe(200);
  created = (await api('POST', '/v1/audit/query', { limit: 500 })).body.operations;
  expect(created).toHaveLength(PLAN.reduce((a, b) => a + b, 0));

  browser = await launchChromium();
  context = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB', timezoneId: 'Europe/Berlin' });
  expect((await context.request.post('/api/auth/sign-in/email', { data: { email: owner.email, password: PASSWORD } })).status()).toBe(200);
  page = await context.newPage();
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
}, 180_000);
afterAll(() => browser?.close());

const chartChunks = () => scripts.filter((path) => /\/assets\/activity-chart-[\w-]+\.js$/.test(path));

/** The numbers table of a chart: its column headers and, per bucket start, the row's numbers. */
async function numbers(figure: Locator): Promise<{ columns: string[]; rows: Map<number, number[]> }> {
  // One read of the whole table: a locator call per cell takes minutes on a loaded machine.
  const table = figure.locator('table');
  const columns = await table.locator('thead th').allTextContents();
  const cells = await table.locator('tbody td').evaluateAll((all) => all.map((cell) => [Number(cell.parentElement?.getAttribute('data-bucket')), Number(cell.textContent)] as const));
  const rows = new Map<number, number[]>();
  for (const [start, n] of cells) rows.set(start, [...(rows.get(start) ?? []), n]);
  return { columns, rows };
}

/** Per bucket of `size` that has any, how many of `rows` fall in it. */
function perBucket(rows: { created_at: number }[], size: number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const row of rows) {
    const start = Math.floor(row.created_at / size) * size;
    counts.set(start, (counts.get(start) ?? 0) + 1);
  }
  return counts;
}

/** The table holds, for each bucket, each column's operations; buckets without any hold zeros. */
function expectTable(table: { rows: Map<number, number[]> }, size: number, columns: { created_at: number }[][]): void {
  const expected = columns.map((rows) => perBucket(rows, size));
  for (const [start, cells] of table.rows) expect(cells, new Date(start).toISOString()).toEqual(expected.map((counts) => counts.get(start) ?? 0));
  for (const counts of expected) for (const start of counts.keys()) expect(table.rows.has(start)).toBe(true);
}

describe('activity charts', () => {
  it('does not load the chart module on a page without a chart', async () => {
    await page.goto('/epochs');
    await page.getByRole('heading', { level: 1, name: 'Epochs' }).waitFor();
    await page.goto('/operations');
    await page.getByRole('heading', { level: 1, name: 'Operations' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(chartChunks()).toEqual([]);
  }, TEST_TIMEOUT);

  it('draws the overview per hour and per day, top five agents and other, with the status changes marked', async () => {
    await page.goto('/');
    const hours = page.locator('figure.activity-chart[data-bucket="hour"]');
    const days = page.locator('figure.activity-chart[data-bucket="day"]');
    await hours.waitFor({ timeout: 30_000 });
    await days.waitFor({ timeout: 30_000 });
    expect(chartChunks()).toHaveLength(1);
    await hours.getByRole('img', { name: /^Operations per hour, last 24 hours 11 operations in 24 hours/ }).waitFor();

    const byAgent = (agentIds: string[]) => created.filter((row) => agentIds.includes(row.agent_id));
    const columns = [...agents.slice(0, 5).map((agentId) => byAgent([agentId])), byAgent(agents.slice(5)), created];
    for (const [figure, size, count] of [[hours, HOUR, 24], [days, DAY, 30]] as const) {
      const table = await numbers(figure);
      expect(table.columns.slice(1)).toEqual([...agents.slice(0, 5), 'Other agents (2)', 'Total']);
      expect(table.rows.size).toBe(count);
      expectTable(table, size, columns);
    }
    const marks = hours.getByRole('list', { name: 'Status changes marked on the chart' }).locator('li');
    expect(await marks.evaluateAll((items) => items.map((item) => item.getAttribute('data-event')))).toEqual(['agent.freeze', 'agent.unfreeze', 'agent.revoke']);
    expect(await marks.first().textContent()).toContain(`${agents[0]} frozen (odd tool use)`);
    expect(await hours.locator('svg .mark').count()).toBe(3);
    await checkPage(page, 'overview-activity');

    // The numbers, hidden until asked for, shown by the button.
    await hours.getByRole('button', { name: 'Show the numbers' }).click();
    await hours.getByRole('table', { name: 'Operations per hour, last 24 hours: operations per hour' }).waitFor();
    expect(await hours.locator('.numbers').evaluate((element) => element.classList.contains('visually-hidden'))).toBe(false);
    await checkPage(page, 'overview-activity-numbers');
  }, TEST_TIMEOUT);

  it("draws an agent's own activity on its page, with its own status changes", async () => {
    await page.goto(`/agents/${encodeURIComponent(agents[0]!)}`);
    await page.getByRole('heading', { level: 1, name: `Agent ${agents[0]}` }).waitFor();
    const days = page.locator('figure.activity-chart[data-bucket="day"]');
    await days.waitFor({ timeout: 30_000 });
    const own = created.filter((row) => row.agent_id === agents[0]);
    const table = await numbers(days);
    expect(table.columns.slice(1)).toEqual([agents[0], 'Total']);
    expectTable(table, DAY, [own, own]);
    const hours = await numbers(page.locator('figure.activity-chart[data-bucket="hour"]'));
    expectTable(hours, HOUR, [own, own]);
    const marks = days.getByRole('list', { name: 'Status changes marked on the chart' }).locator('li');
    expect(await marks.evaluateAll((items) => items.map((item) => item.getAttribute('data-event')))).toEqual(['agent.freeze', 'agent.unfreeze']);
    await checkPage(page, 'agent-activity');
  }, TEST_TIMEOUT);
});
