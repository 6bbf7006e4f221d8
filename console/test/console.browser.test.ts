/**
 * The console in a real browser (Chromium through playwright-core) against the local stack,
 * the way an owner and a colleague use it: sign up, verify the email from the local mail log,
 * onboard, create an API token, register an agent and submit operations through the API with
 * it, then query them with every filter and page with the cursor, export them and download
 * the bundle once the live progress reaches done, register a webhook to a local receiver and
 * see a test ping and a redelivery in its delivery log, disable and enable it, open an
 * operation and see every check pass in the browser, tamper with its stored receipt and see
 * that check fail, freeze the agent, invite a member and sign in as them with a narrower role,
 * whose pages lack what the role may not do. Every page passes axe-core and leaves a
 * screenshot (test/support/browser.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { verifyExportBundle } from '@agent-ledger/protocol';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationLink } from '../../test/support/identity-flows.js';
import { apiClient, uniqueEmail, type Api } from '../../test/support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../../test/support/ledger-fixtures.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { startOpensslTsa, type OpensslTsa } from '../../test/support/openssl-tsa.js';
import { tamperReceipt } from '../../test/support/tamper.js';
import { checkPage, launchChromium } from '../../test/support/browser.js';
import { builtConsole } from './support/console-build.js';
import { signatureValid, startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { waitForSealedLeaves } from '../../test/support/sealed-leaves.js';

const PASSWORD = 'correct horse battery';
/** The budget for the production bundle (gzipped). */
const BUNDLE_BUDGET_BYTES = 200 * 1024;

let tsa: OpensslTsa;
let receiver: WebhookReceiver;
let dist: string;
beforeAll(async () => {
  // The console built from the sources under test, once for the run (support/console-build.ts).
  [tsa, receiver, dist] = await Promise.all([startOpensslTsa(), startReceiver(), builtConsole()]);
}, 120_000);
afterAll(async () => {
  await Promise.all([tsa?.stop(), receiver?.close()]);
});
// Epochs of one second, anchored by a local RFC 3161 TSA, so the inclusion and anchor checks apply
// within the test; webhooks may reach the receiver on loopback over plain http (docs/WEBHOOKS.md).
const stack = useLedgerStack(() => ({
  env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200', LEDGER_TSA_URL: tsa.url, LEDGER_WEBHOOK_ALLOW_LOOPBACK: '1' },
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
  // The page renders once the app knows there is no session: axe looks at it then, not before.
  await heading(page, 'Create your account').waitFor();
  await checkPage(page, 'sign-up');
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await heading(page, 'Check your email').waitFor();
  // The local identity provider's mail is a log line; its link is the one a person would click.
  await page.goto(await verificationLink(email));
  await page.getByText('Your email address is verified').waitFor();
  expect(await page.getByLabel('Email').inputValue()).toBe(email);
  await checkPage(page, 'sign-in');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
}

/** `ms` as a datetime-local value in the browser context's time zone (Europe/Berlin), to the second. */
const berlinInput = (ms: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'medium' }).format(ms).replace(' ', 'T');

const waitForSealed = (count: number) => waitForSealedLeaves(api, count, 20_000);

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
  }, 90_000);

  it('creates an API token, shown once with a button that copies it', async () => {
    const { page } = owner;
    await nav(page, 'API tokens');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.locator('code[data-secret]');
    await shown.waitFor();
    token = (await shown.textContent())!;
    await expect.poll(() => page.getByRole('button', { name: 'Copy the token' }).isVisible()).toBe(true);
    await checkPage(page, 'tokens');
    api = apiClient(stack.baseUrl, token);
    const me = await api('GET', '/v1/auth/me');
    expect(me.status).toBe(200);
    orgId = me.body.current_organization.org_id;
    // A finite lifetime by default (90 days), and the panel's one copy button copies the token, not its id.
    expect(me.body.credential.expires_at - Date.now() / 1000).toBeGreaterThan(89 * 86_400);
    expect(me.body.credential.expires_at - Date.now() / 1000).toBeLessThanOrEqual(90 * 86_400);
    const copies = await page.getByRole('region', { name: 'Your new API token' }).getByRole('button', { name: /^Copy/ }).allTextContents();
    expect(copies).toHaveLength(1);
    expect(await page.getByRole('region', { name: 'Your new API token' }).getByRole('button', { name: /^Copy/ }).getAttribute('aria-label')).toMatch(/the token/);
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

  it('queries operations with every filter and pages through them with the cursor', async () => {
    const { page } = owner;
    await nav(page, 'Operations');
    await page.getByLabel('Agent id').fill(agentId);
    await page.getByLabel('Operation type').fill('tool.invoke');
    await page.getByLabel(/^From/).fill(berlinInput(Date.now() - 3_600_000));
    await page.getByLabel(/^To/).fill(berlinInput(Date.now() + 60_000));
    await page.getByLabel('Per page').fill('1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // Newest first by default: the two tool.invoke operations, one a page, the file.write one filtered out.
    const rows = page.locator('table tbody tr');
    const shownId = () => rows.locator('.short-id code').getAttribute('title');
    await page.getByText('2 operations match; page 1.').waitFor();
    expect(await rows.count()).toBe(1);
    expect(await shownId()).toBe(operations[2]!.operation_id);
    expect(new URL(page.url()).searchParams.get('operation_type')).toBe('tool.invoke');
    await checkPage(page, 'operations');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('2 operations match; page 2.').waitFor();
    expect(await shownId()).toBe(operations[0]!.operation_id);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.getByText('2 operations match; page 1.').waitFor();
    expect(await shownId()).toBe(operations[2]!.operation_id);
    // Oldest first, as the API answers, from the order control; the choice goes into the address.
    await page.getByLabel('Order').selectOption('oldest');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('table', { name: /oldest first/ }).waitFor();
    expect(await shownId()).toBe(operations[0]!.operation_id);
    expect(new URL(page.url()).searchParams.get('order')).toBe('oldest');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('2 operations match; page 2.').waitFor();
    expect(await shownId()).toBe(operations[2]!.operation_id);
    await page.getByLabel('Order').selectOption('newest');

    // A range that ends before the operations were accepted matches none of them.
    await page.getByLabel(/^To/).fill(berlinInput(Date.now() - 1_800_000));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No operation matches these filters.').waitFor();
    // The API's refusal of a filter shows next to the query, in its words.
    await page.getByLabel(/^To/).fill('');
    await page.getByLabel('Operation type').fill('not dotted');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be dotted' }).waitFor();
  });

  it('creates an export, follows its progress to done and downloads a bundle that verifies offline', async () => {
    const { page } = owner;
    await nav(page, 'Exports');
    await page.getByText('No export yet.').waitFor();
    await page.getByRole('button', { name: 'Create export' }).click();
    const row = page.locator('tr[data-export]');
    await row.locator('.status-done').waitFor({ timeout: 20_000 });
    const exportId = (await row.getAttribute('data-export'))!;
    await row.getByText('3 of 3 operations').waitFor();
    const bar = row.getByRole('progressbar', { name: `Progress of export ${exportId}` });
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['3', '3']);
    await checkPage(page, 'exports');
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: /^Download JSON/ }).click()]);
    expect(download.suggestedFilename()).toBe(`export-${exportId}.json`);
    const bytes = await readFile((await download.path())!);
    const report = verifyExportBundle(new Uint8Array(bytes));
    expect(report.findings.filter((finding) => finding.status === 'failed')).toEqual([]);
    expect(report.counts.operations).toBe(operations.length);
  });

  it('shows an export withdrawn after a payload it held was erased, why, and offers no download', async () => {
    const { page } = owner;
    const erased = operations[0]!.operation_id;
    // Done first: an export still running when the payload is erased starts over instead.
    await expect
      .poll(async () => ((await api('GET', '/v1/exports')).body.exports as { status: string }[]).map((e) => e.status), { timeout: 60_000 })
      .toEqual(['done']);
    expect((await api('POST', `/v1/operations/${erased}/erase-payload`, { reason: 'a secret leaked into a tool call' })).status).toBe(200);
    // The page is still open from the export above: the list is read anew on a reload.
    await page.reload();
    const row = page.locator('tr[data-export]');
    await row.locator('.status-withdrawn').waitFor();
    await row.locator('[data-withdrawn]').filter({ hasText: 'a secret leaked into a tool call' }).waitFor();
    expect(await row.getByRole('link', { name: /^Download/ }).count()).toBe(0);
    expect(await row.getByRole('link', { name: erased.slice(0, 8) }).getAttribute('href')).toBe(`/operations/${erased}`);
    await checkPage(page, 'exports-withdrawn');
    await page.setViewportSize({ width: 390, height: 844 });
    await checkPage(page, 'exports-withdrawn-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('registers a webhook, sends a test ping, redelivers it, and disables and enables the webhook', async () => {
    const { page } = owner;
    await nav(page, 'Webhooks');
    await page.getByText('No webhook registered yet.').waitFor();
    await page.getByLabel('Endpoint URL').fill(`${receiver.origin}/console`);
    await page.getByRole('checkbox', { name: /agent\.status_changed/ }).check();
    await page.getByRole('button', { name: 'Register webhook' }).click();
    const secret = (await page.locator('code[data-secret]').textContent())!;
    await page.getByRole('link', { name: `${receiver.origin}/console` }).waitFor();
    await checkPage(page, 'webhooks');

    await page.getByRole('link', { name: 'Open the webhook and send a test ping' }).click();
    await heading(page, 'Webhook').waitFor();
    await page.getByText('No delivery yet. Send a test ping to see one.').waitFor();
    await page.getByRole('button', { name: 'Send test ping' }).click();
    await page.getByText(/^Test ping succeeded: HTTP 204 in \d+ ms\.$/).waitFor();
    const ping = page.locator('tr[data-delivery]').filter({ hasText: 'ping' });
    await ping.locator('.status-succeeded').waitFor();
    const received = receiver.received.filter((delivery) => delivery.path === '/console');
    expect(received.map((delivery) => JSON.parse(delivery.body).event)).toEqual(['ping']);
    expect(signatureValid(secret, received[0]!)).toBe(true);
    expect(await ping.getAttribute('data-delivery')).toBe(received[0]!.headers['x-service-webhook-delivery-id']);

    await ping.getByRole('button', { name: /^Redeliver ping delivery/ }).click();
    await ping.getByText(/^2 attempts, last HTTP 204/).waitFor();
    await receiver.waitFor((all) => all.filter((delivery) => delivery.path === '/console').length === 2);
    await checkPage(page, 'webhook');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    expect(await page.locator('.facts .status').textContent()).toBe('disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    expect(await page.locator('.facts .status').textContent()).toBe('active');
  });

  it('opens an operation and verifies every check in the browser', async () => {
    const { page } = owner;
    const target = operations[2]!;
    await nav(page, 'Operations');
    await page.getByLabel('Operation id', { exact: true }).fill(target.operation_id);
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
    // The receipt as stored, with another operation's receipt_hash in place of its own.
    const read = async (index: number) => (await api('GET', `/v1/operations/${operations[index]!.operation_id}`)).body.signed_receipt;
    await tamperReceipt(orgId, operations[2]!.operation_id, { ...(await read(2)), receipt_hash: (await read(1)).receipt_hash });
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
    // Every role may read the organization's settings; only the roles PATCH allows see controls.
    expect(links).toEqual(['Overview', 'Agents', 'Operations', 'Epochs', 'Members', 'Organization', 'API tokens']);
    await checkPage(member, 'member-overview');
    await nav(member, 'Organization');
    await member.locator('#key-proof-state').waitFor();
    expect(await member.getByRole('button').filter({ hasText: /require|proof|save/i }).count()).toBe(0);

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
