/**
 * Every page of the console at a desktop (1280 px) and a phone (390 px) width, in Chromium
 * against the local stack, with the data that made the layout fail before: hook records whose
 * tool names and commands are single long words (`WebFetch`, `git push --force`), a frozen
 * agent with its reason, an expanded operation row, an export, a webhook and an admin log.
 * A page fails when it scrolls sideways, breaks a short word over two lines or squeezes a
 * text box to one character a line (test/support/layout-checks.ts). Screenshots of each page
 * at each width go to console/test-results/screenshots/layout-<page>-<width>.png.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgOwner, TEST_PASSWORD } from '../../test/support/identity-flows.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../../test/support/ledger-fixtures.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { launchChromium, SCREENSHOTS } from '../../test/support/browser.js';
import { layoutProblems, WIDTHS, type WidthName } from '../../test/support/layout-checks.js';
import { builtConsole } from './support/console-build.js';

const TEST_TIMEOUT = 240_000;
let dist: string;
beforeAll(async () => {
  dist = await builtConsole();
}, 120_000);
const stack = useLedgerStack(() => ({ env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200', LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' }, consoleDir: dist }));

let browser: Browser;
let api: Api;
let ownerEmail: string;
const frozenAgent = uniqueAgentId('claude-code-laptop-of-someone');
const activeAgent = uniqueAgentId('ci-runner');
let operationId = '';
let webhookId = '';
const WORKSPACE = '/home/dev/projects/payments-service-with-a-long-name';

const hook = (verb: string, target: string) => ({
  fields: { operation_type: 'tool.invoke', subject: { kind: 'workspace', id: WORKSPACE }, action: { verb, target } },
  payload: { client: 'claude-code', tool_input: { command: target } },
});

beforeAll(async () => {
  const owner = await orgOwner(stack.baseUrl, 'Layout Testing Organization With A Long Name');
  ownerEmail = owner.email;
  const minted = await stack.call('POST', '/v1/auth/token', { token: owner.session, body: {} });
  api = apiClient(stack.baseUrl, minted.json.token);
  for (const agentId of [frozenAgent, activeAgent]) {
    const key = newKey('k1');
    await registerAgent(api, agentId, [key]);
    const chain = new ClientChain(owner.orgId, agentId, key);
    for (const [verb, target] of [
      ['WebFetch', 'https://docs.example.com/guides/deployment/rollback-procedures?version=2024-11&lang=en'],
      ['Bash', 'git push --force origin main'],
      ['Read', 'src/payments/refunds/partial-refund-calculator.test.ts'],
      ['Edit', 'README.md'],
    ] as const) {
      const { record, res } = await chain.submit(api, hook(verb, target));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      operationId = record.operation_id;
    }
  }
  // A key added with the original /v1 body (no proof of possession): the agent page marks it unproven.
  const unproven = newKey('k2-registered-without-proof');
  expect((await api('POST', `/v1/agents/${activeAgent}/keys`, { kid: unproven.kid, public_key: unproven.publicKey, algorithm: 'ed25519' })).status).toBe(200);
  expect((await api('POST', `/v1/agents/${frozenAgent}/freeze`, { reason: 'Pushed with --force to main outside the change window' })).status).toBe(200);
  expect((await api('POST', `/v1/agents/${frozenAgent}/unfreeze`, { reason: 'reviewed' })).status).toBe(200);
  expect((await api('POST', `/v1/agents/${frozenAgent}/freeze`, { reason: 'Pushed with --force to main outside the change window' })).status).toBe(200);
  const now = Date.now();
  expect((await api('POST', '/v1/exports', { start_time: now - 3_600_000, end_time: now, format: 'json' })).status).toBe(201);
  const webhook = await api('POST', '/v1/webhooks', { endpoint_url: 'http://127.0.0.1:9/hooks/ledger-events', events: ['operation.accepted', 'agent.status_changed'], secret: 'a-long-random-secret-value' });
  expect(webhook.status).toBe(201);
  webhookId = webhook.body.webhook.webhook_id ?? webhook.body.webhook.id;
  expect((await api('POST', '/v1/members/invitations', { email: `auditor-${Date.now()}@example.com`, role: 'compliance_auditor' })).status).toBe(201);
  browser = await launchChromium();
}, 120_000);
afterAll(() => browser?.close());

/** The signed-in pages: path, the h1 to wait for, and what to do before measuring. */
const PAGES: { name: string; path: () => string; heading: RegExp; prepare?: (page: Page) => Promise<void> }[] = [
  { name: 'overview', path: () => '/', heading: /Overview/ },
  { name: 'agents', path: () => '/agents', heading: /^Agents$/ },
  { name: 'agent-frozen', path: () => `/agents/${frozenAgent}`, heading: /^Agent / },
  { name: 'agent-keys', path: () => `/agents/${activeAgent}`, heading: /^Agent / },
  {
    name: 'operations-expanded',
    path: () => '/operations',
    heading: /^Operations$/,
    prepare: async (page) => {
      const row = page.locator('tbody tr').filter({ hasText: 'WebFetch' }).first();
      await row.waitFor({ timeout: 15_000 }).catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${await page.locator('main').innerText()}`);
      });
      await row.locator('summary').first().click();
    },
  },
  { name: 'operation', path: () => `/operations/${operationId}`, heading: /^Operation/ },
  { name: 'operation-unknown', path: () => '/operations/01900000-0000-7000-8000-000000000000', heading: /./ },
  { name: 'epochs', path: () => '/epochs', heading: /^Epochs$/ },
  { name: 'exports', path: () => '/exports', heading: /^Exports$/ },
  { name: 'webhooks', path: () => '/webhooks', heading: /^Webhooks$/ },
  { name: 'webhook', path: () => `/webhooks/${webhookId}`, heading: /Webhook/ },
  { name: 'members', path: () => '/members', heading: /^Members$/ },
  { name: 'organization', path: () => '/organization', heading: /^Organization$/ },
  { name: 'tokens', path: () => '/tokens', heading: /API tokens/ },
  { name: 'admin-log', path: () => '/admin-log', heading: /^Admin log$/ },
  { name: 'not-found', path: () => '/no-such-page', heading: /./ },
];

async function measure(page: Page, name: string, width: WidthName): Promise<string[]> {
  // Live lists and charts settle after the first paint.
  await page.waitForLoadState('networkidle').catch(() => undefined);
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}layout-${name}-${width}.png`, fullPage: true });
  return (await layoutProblems(page)).map((problem) => `${name} at ${WIDTHS[width].width}px: ${problem}`);
}

async function signedInContext(width: WidthName): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB', viewport: WIDTHS[width] });
  const signIn = await context.request.post('/api/auth/sign-in/email', { data: { email: ownerEmail, password: TEST_PASSWORD } });
  expect(signIn.status()).toBe(200);
  return context;
}

describe('the console fits desktop and phone widths', () => {
  for (const width of Object.keys(WIDTHS) as WidthName[]) {
    it(`at ${WIDTHS[width].width} px: no page scrolls sideways, breaks a short word or squeezes text to one character a line`, async () => {
      const problems: string[] = [];
      const signedOut = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB', viewport: WIDTHS[width] });
      const outPage = await signedOut.newPage();
      for (const [name, path] of [['sign-in', '/sign-in'], ['sign-up', '/sign-up']] as const) {
        await outPage.goto(path);
        await outPage.getByRole('heading', { level: 1 }).waitFor();
        problems.push(...(await measure(outPage, name, width)));
      }
      await signedOut.close();
      const context = await signedInContext(width);
      const page = await context.newPage();
      for (const entry of PAGES) {
        await page.goto(entry.path());
        await page.getByRole('heading', { level: 1, name: entry.heading }).first().waitFor();
        await entry.prepare?.(page);
        problems.push(...(await measure(page, entry.name, width)));
      }
      await context.close();
      expect(problems).toEqual([]);
    }, TEST_TIMEOUT);
  }
});

describe('what the pages say', () => {
  it('names why, when and by whom an agent was frozen; its chart letters do not overlap; the admin log reads as names and values', async () => {
    const context = await signedInContext('desktop');
    const page = await context.newPage();
    await page.goto(`/agents/${frozenAgent}`);
    const status = page.locator('.facts dd').filter({ has: page.locator('.status-frozen') });
    await status.locator('.status-change q').waitFor();
    expect(await status.textContent()).toMatch(new RegExp(`^frozen since .+, by ${ownerEmail.replace(/[.+]/g, '\\$&')}: “?Pushed with --force to main outside the change window”?$`));
    // Freeze, unfreeze and freeze again within the hour: three letters, none over another.
    const letters = page.locator('figure:has(#activity-hours-title) .mark text');
    await letters.nth(2).waitFor();
    const boxes = await letters.evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect()).map((r) => ({ left: r.left, right: r.right })));
    expect(boxes).toHaveLength(3);
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left, `letter ${i} starts after letter ${i - 1} ends`).toBeGreaterThanOrEqual(boxes[i - 1]!.right - 0.5);

    await page.goto('/admin-log');
    const freeze = page.locator('tbody tr').filter({ hasText: 'agent.freeze' }).first();
    await freeze.waitFor();
    expect(await freeze.locator('td.details').textContent()).not.toContain('{');
    expect(await freeze.locator('td.details dt').allTextContents()).toEqual(expect.arrayContaining(['reason', 'previous status']));
    await context.close();
  }, TEST_TIMEOUT);

  it("marks each key proven or not on the agent page, and switches the organization's proof rule only after a confirmation", async () => {
    const context = await signedInContext('desktop');
    const page = await context.newPage();
    await page.goto(`/agents/${activeAgent}`);
    const keys = page.getByRole('table', { name: 'Keys' });
    await keys.locator('tbody tr').nth(1).waitFor();
    const rows = await keys.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')));
    const possession = Object.fromEntries(rows.map((cells) => [cells[0], cells[5]]));
    expect(possession).toEqual({ k1: 'proven', 'k2-registered-without-proof': 'not proven' });

    await page.goto('/organization');
    await expect.poll(() => page.locator('#key-proof-state').textContent()).toBe('Not required');
    // Cancelling the confirmation changes nothing.
    await page.getByRole('button', { name: 'Require proofs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Require a proof of possession for every new key?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', '/v1/organization')).body.organization.require_key_proof).toBe(false);
    await page.getByRole('button', { name: 'Require proofs' }).click();
    await dialog.getByRole('button', { name: 'Require proofs' }).click();
    await expect.poll(() => page.locator('#key-proof-state').textContent()).toBe('Required');
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOTS}organization-proofs-required-desktop.png`, fullPage: true });
    try {
      expect((await api('GET', '/v1/organization')).body.organization.require_key_proof).toBe(true);
      const refused = newKey('k3');
      const res = await api('POST', `/v1/agents/${activeAgent}/keys`, { kid: refused.kid, public_key: refused.publicKey, algorithm: 'ed25519' });
      expect(`${res.status} ${res.body.error?.code}`).toBe('400 VALIDATION_ERROR');
      const events = (await api('GET', '/v1/admin/events?limit=20')).body.events as { action: string; details: string }[];
      expect(JSON.parse(events.find((e) => e.action === 'org.update')?.details ?? 'null')).toEqual({ require_key_proof: true });
    } finally {
      await page.getByRole('button', { name: 'Stop requiring proofs' }).click();
      await page.getByRole('dialog', { name: 'Stop requiring proofs of possession?' }).getByRole('button', { name: 'Stop requiring proofs' }).click();
      await expect.poll(() => page.locator('#key-proof-state').textContent()).toBe('Not required');
    }
    await context.close();
  }, TEST_TIMEOUT);
});
