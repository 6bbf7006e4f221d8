/**
 * The console in a real browser (Chromium through playwright-core) against the local stack,
 * the way an owner and a colleague use it: sign up, verify the email from the local mail log,
 * onboard, create an API token, register an agent and submit operations through the API with
 * it, then find an operation, see every check pass in the browser, tamper with its stored
 * receipt and see that check fail, freeze the agent, invite a member and sign in as them with a
 * narrower role, whose pages lack what the role may not do. Every page passes axe-core and
 * leaves a screenshot (test/support/browser.ts).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationLink } from '../../test/support/identity-flows.js';
import { apiClient, uniqueEmail, type Api } from '../../test/support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../../test/support/ledger-fixtures.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { startOpensslTsa, type OpensslTsa } from '../../test/support/openssl-tsa.js';
import { tamperReceipt } from '../../test/support/tamper.js';
import { checkPage, launchChromium } from '../../test/support/browser.js';

const CONSOLE = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'correct horse battery';
/** The budget for the production bundle (gzipped). */
const BUNDLE_BUDGET_BYTES = 200 * 1024;

let tsa: OpensslTsa;
let dist: string;
beforeAll(async () => {
  // The console built from the sources under test, into a directory of its own: console/dist is
  // read by other test files (the CDK stack's, npm start's) at the same time.
  dist = await mkdtemp(join(tmpdir(), 'console-dist-'));
  const [started] = await Promise.all([startOpensslTsa(), build({ root: CONSOLE, configLoader: 'runner', logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } })]);
  tsa = started;
}, 120_000);
afterAll(async () => {
  await tsa?.stop();
  if (dist) await rm(dist, { recursive: true, force: true });
});
// Epochs of one second, anchored by a local RFC 3161 TSA, so the inclusion and anchor checks apply within the test.
const stack = useLedgerStack(() => ({
  env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200', LEDGER_TSA_URL: tsa.url },
  consoleDir: dist,
}));

let browser: Browser;
let owner: { context: BrowserContext; page: Page; email: string };
let token: string;
let api: Api;
let orgId: string;
const agentId = uniqueAgentId('build-bot');
const operations: { operation_id: string; operation_type: string }[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const context = await browser.newContext({ baseURL: stack.baseUrl, timezoneId: 'Europe/Berlin', locale: 'en-GB' });
  owner = { context, page: await context.newPage(), email: uniqueEmail('owner') };
});
afterAll(() => browser?.close());

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });

async function signUpAndVerify(page: Page, name: string, email: string): Promise<void> {
  await page.goto('/sign-up');
  await checkPage(page, 'sign-up');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading(page, 'Check your email').waitFor();
  // The local identity provider's mail is a log line; its link is the one a person would click.
  await page.goto(verificationLink(email));
  await page.getByText('Your email address is verified').waitFor();
  expect(await page.getByLabel('Email').inputValue()).toBe(email);
  await checkPage(page, 'sign-in');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
}

async function waitForSealed(count: number): Promise<void> {
  for (const deadline = Date.now() + 20_000; ; ) {
    const epochs = (await api('GET', '/v1/epochs?limit=100')).body.epochs as { leaf_count: number }[];
    if (epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0) >= count) return;
    if (Date.now() > deadline) throw new Error('operations were not sealed in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the console, end to end in Chromium', () => {
  it('stays within its bundle budget', async () => {
    const assets = await readdir(join(dist, 'assets'));
    let total = 0;
    for (const file of assets) total += gzipSync(await readFile(join(dist, 'assets', file)), { level: 9 }).length;
    expect(total).toBeLessThan(BUNDLE_BUDGET_BYTES);
  });

  it('signs up, verifies the email and onboards an organization', async () => {
    const { page } = owner;
    await signUpAndVerify(page, 'Olivia Owner', owner.email);
    await heading(page, 'Set up your workspace').waitFor();
    await checkPage(page, 'onboarding');
    await page.getByLabel('Organization name').fill('Acme Audit');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await heading(page, 'Overview').waitFor();
    await expect.poll(() => page.getByText('No agents registered yet.').isVisible()).toBe(true);
  });

  it('creates an API token, shown once with a copy button', async () => {
    const { page } = owner;
    await nav(page, 'API tokens');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.locator('code[data-secret]');
    await shown.waitFor();
    token = (await shown.textContent())!;
    await expect.poll(() => page.getByRole('button', { name: 'Copy the new token' }).isVisible()).toBe(true);
    await checkPage(page, 'tokens');
    api = apiClient(stack.baseUrl, token);
    const me = await api('GET', '/v1/auth/me');
    expect(me.status).toBe(200);
    orgId = me.body.current_organization.org_id;
  });

  it('shows agents and operations registered and submitted through the API', async () => {
    const key = newKey('k1');
    await registerAgent(api, agentId, [key]);
    const chain = new ClientChain(orgId, agentId, key);
    for (const [operation_type, payload] of [
      ['tool.invoke', { tool: 'Bash', command: 'npm test' }],
      ['file.write', { path: 'src/index.ts' }],
      ['tool.invoke', { tool: 'Read', file: 'README.md' }],
    ] as const) {
      const { record, res } = await chain.submit(api, { payload, fields: { operation_type } });
      expect(res.status).toBe(200);
      operations.push({ operation_id: record.operation_id, operation_type });
    }
    const { page } = owner;
    await nav(page, 'Overview');
    await expect.poll(() => page.locator('.counts dd').first().textContent()).toBe('1');
    await waitForSealed(operations.length);
    await checkPage(page, 'overview');
    await nav(page, 'Agents');
    await page.getByRole('link', { name: agentId }).waitFor();
    await checkPage(page, 'agents');
  });

  it('opens an operation and verifies every check in the browser', async () => {
    const { page } = owner;
    const target = operations[2]!;
    await nav(page, 'Operations');
    await page.getByLabel('Operation id').fill(target.operation_id);
    await page.getByRole('button', { name: 'Open' }).click();
    await heading(page, 'Operation').waitFor();
    await page.getByText('Every check that applies passed.').waitFor();
    for (const check of ['signature', 'chain', 'receipt', 'inclusion', 'anchor']) {
      expect(await page.locator(`[data-check="${check}"] .check-status`).textContent(), check).toBe('Passed');
    }
    expect(await page.locator('[data-check="chain"] .check-reason').textContent()).toContain(`links to seq_no 2 (${operations[1]!.operation_id})`);
    await checkPage(page, 'operation');
  });

  it('shows the receipt check failing, with its reason, once the stored receipt is tampered with', async () => {
    const { page } = owner;
    await tamperReceipt(orgId, operations[2]!.operation_id);
    await page.getByRole('button', { name: 'Verify again' }).click();
    await page.getByText('1 check failed.').waitFor();
    expect(await page.locator('[data-check="receipt"] .check-status').textContent()).toBe('Failed');
    expect(await page.locator('[data-check="receipt"] .check-reason').textContent()).toMatch(/receipt_hash does not recompute/);
    expect(await page.locator('[data-check="signature"] .check-status').textContent()).toBe('Passed');
    await checkPage(page, 'operation-tampered');
  });

  it('freezes the agent after a confirmation with a reason', async () => {
    const { page } = owner;
    await nav(page, 'Agents');
    await page.getByRole('link', { name: agentId }).click();
    await heading(page, `Agent ${agentId}`).waitFor();
    await page.getByRole('button', { name: 'Freeze' }).click();
    const dialog = page.getByRole('dialog', { name: `Freeze ${agentId}?` });
    await checkPage(page, 'agent-freeze-dialog');
    // The reason is required: the API is not asked without one.
    await dialog.getByRole('button', { name: 'Freeze agent' }).click();
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByLabel('Reason').fill('suspicious tool use');
    await dialog.getByRole('button', { name: 'Freeze agent' }).click();
    await page.getByRole('button', { name: 'Unfreeze' }).waitFor();
    expect((await api('GET', `/v1/agents/${agentId}`)).body.agent.status).toBe('frozen');
    await checkPage(page, 'agent');
  });

  it('shows the epochs, the members and the admin log', async () => {
    const { page } = owner;
    await nav(page, 'Epochs');
    await page.locator('tbody tr').first().waitFor();
    await checkPage(page, 'epochs');
    await nav(page, 'Admin log');
    await page.getByText('agent.freeze').waitFor();
    await checkPage(page, 'admin-log');
  });

  it('invites a member, who signs in with a narrower role and does not see what it may not do', async () => {
    const { page } = owner;
    const memberEmail = uniqueEmail('investigator');
    await nav(page, 'Members');
    await page.getByLabel('Email').fill(memberEmail);
    await page.getByRole('combobox', { name: /^Role/ }).selectOption('readonly_investigator');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText(`${memberEmail} as Read-only investigator`).waitFor({ timeout: 10_000 });
    await checkPage(page, 'members');

    const context = await browser.newContext({ baseURL: stack.baseUrl });
    const member = await context.newPage();
    await signUpAndVerify(member, 'Ivan Investigator', memberEmail);
    await heading(member, 'Set up your workspace').waitFor();
    await member.getByRole('button', { name: 'Join Acme Audit' }).click({ timeout: 10_000 });
    await heading(member, 'Overview').waitFor();
    expect(await member.locator('.badge').textContent()).toBe('Read-only investigator');
    const links = await member.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(links).toEqual(['Overview', 'Agents', 'Operations', 'Epochs', 'Members', 'API tokens']);
    await checkPage(member, 'member-overview');

    await nav(member, 'Agents');
    await member.getByRole('link', { name: agentId }).click();
    await heading(member, `Agent ${agentId}`).waitFor();
    await member.getByRole('table', { name: 'Keys' }).waitFor();
    for (const action of ['Freeze', 'Unfreeze', 'Revoke agent', 'Revoke key k1', 'Assign']) {
      expect(await member.getByRole('button', { name: action }).count(), action).toBe(0);
    }
    expect(await member.getByRole('heading', { name: 'Assignments' }).count()).toBe(0);
    await checkPage(member, 'member-agent');

    await nav(member, 'Members');
    await member.getByText(owner.email).waitFor();
    expect(await member.getByRole('combobox').count()).toBe(0);
    expect(await member.getByRole('button', { name: /Remove|Invite/ }).count()).toBe(0);
    await nav(member, 'Operations');
    expect(await member.getByRole('heading', { name: 'Audit query' }).count()).toBe(0);
    await context.close();
  }, 90_000);
});
