/**
 * The console for the people who investigate (docs/API.md §4.6 audit query, docs/HOOKS.md
 * records), in Chromium against the local stack: the operations list and an agent's recent
 * operations say what each record did (tool, target, workspace, outcome), whole on hover and
 * expansion; both follow records submitted while the page is open, without a reload. Every
 * page passes axe-core (test/support/browser.ts).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser, verificationLink } from '../../test/support/identity-flows.js';
import { apiClient, type Api } from '../../test/support/http-client.js';
import { ClientChain, newKey, registerAgent, uniqueAgentId } from '../../test/support/ledger-fixtures.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { checkPage, launchChromium } from '../../test/support/browser.js';
import { tamperPayload } from '../../test/support/tamper.js';
import { builtConsole } from './support/console-build.js';

/** signedInUser's password (test/support/identity-flows.ts). */
const PASSWORD = 'password-1234';
/** Live polling backs off to 30 s at most; a loaded machine gets room beyond that. */
const LIVE_TIMEOUT = 45_000;
/** Each test on a loaded machine: page loads, axe and screenshots take seconds each. */
const TEST_TIMEOUT = 120_000;

let dist: string;
beforeAll(async () => {
  // The console built from the sources under test, once for the run (support/console-build.ts).
  dist = await builtConsole();
}, 120_000);
// Epochs of one second, so the chain strip's sealed part can be seen within the test.
const stack = useLedgerStack(() => ({ env: { LEDGER_EPOCH_MS: '1000', LEDGER_EPOCH_GRACE_MS: '200' }, consoleDir: dist }));

let browser: Browser;
let context: BrowserContext;
let page: Page;
let api: Api;
let chain: ClientChain;
let sdkChain: ClientChain;
const agentId = uniqueAgentId('deploy-bot');
const sdkAgentId = uniqueAgentId('sdk-bot');
const WORKSPACE = '/home/dev/projects/payments-service';
const LONG_COMMAND = `kubectl --context production --namespace payments rollout restart deployment/payments-api && kubectl rollout status deployment/payments-api --timeout=300s`;

const heading = (name: string) => page.getByRole('heading', { level: 1, name });
const hookRecord = (verb: string, target: string) => ({
  fields: { operation_type: 'tool.invoke', subject: { kind: 'workspace', id: WORKSPACE }, action: { verb, target } },
  payload: { client: 'claude-code', tool_input: { command: target } },
});

beforeAll(async () => {
  // An owner of a fresh organization, signed in inside the browser context (its session cookie).
  const owner = await signedInUser(stack.baseUrl, 'Investigator');
  const onboarded = await stack.call('POST', '/v1/onboarding/organization', { token: owner.session, body: { org_name: 'Investigations' } });
  expect(onboarded.status).toBe(201);
  const minted = await stack.call('POST', '/v1/auth/token', { token: owner.session, body: {} });
  expect(minted.status).toBe(200);
  api = apiClient(stack.baseUrl, minted.json.token);
  const key = newKey('k1');
  await registerAgent(api, agentId, [key], 'claudecode');
  chain = new ClientChain(onboarded.json.org_id, agentId, key);
  const sdkKey = newKey('k1');
  await registerAgent(api, sdkAgentId, [sdkKey], 'sdk');
  sdkChain = new ClientChain(onboarded.json.org_id, sdkAgentId, sdkKey);

  browser = await launchChromium();
  context = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB' });
  const signIn = await context.request.post('/api/auth/sign-in/email', { data: { email: owner.email, password: PASSWORD } });
  expect(signIn.status()).toBe(200);
  page = await context.newPage();
}, 60_000);
afterAll(() => browser?.close());

async function submit(options: Parameters<ClientChain['submit']>[1]): Promise<string> {
  const { record, res } = await chain.submit(api, options);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return record.operation_id;
}

describe('the console says what agents did, and follows them live', () => {
  it('shows the tool, the command, the workspace and the outcome of a hook record in the operations list', async () => {
    await submit(hookRecord('Read', 'README.md'));
    await submit(hookRecord('Bash', LONG_COMMAND));
    await submit({ fields: { operation_type: 'deploy.finish', subject: { kind: 'service', id: 'payments-api' }, action: { verb: 'deploy', target: 'production', outcome: 'failed' } } });

    await page.goto(`/operations?agent_id=${encodeURIComponent(agentId)}&order=oldest`);
    await heading('Operations').waitFor();
    const rows = page.getByRole('table', { name: /matching the filters, oldest first/ }).locator('tbody tr');
    await rows.nth(2).waitFor({ timeout: 30_000 });
    expect(await rows.count()).toBe(3);
    const bash = rows.nth(1);
    // The cell shows the tool and the start of the command, the whole command on hover.
    expect(await bash.locator('.verb').textContent()).toBe('Bash');
    const shown = bash.locator('summary code.truncated');
    expect(await shown.getAttribute('title')).toBe(LONG_COMMAND);
    expect((await shown.textContent())!.endsWith('…')).toBe(true);
    expect(LONG_COMMAND.startsWith((await shown.textContent())!.slice(0, -1))).toBe(true);
    expect(await bash.locator('td').nth(3).locator('code').getAttribute('title')).toBe(WORKSPACE);
    expect(await bash.locator('td').nth(4).textContent()).toBe('allowed by the hook');
    // Expanded, the details hold the whole command and workspace.
    await bash.locator('summary').click();
    expect(await bash.locator('details .whole').first().textContent()).toBe(LONG_COMMAND);
    expect(await bash.locator('details .whole').nth(1).textContent()).toBe(WORKSPACE);
    // A record that names its outcome shows it; a subject other than a workspace shows its kind.
    const deploy = rows.nth(2);
    expect(await deploy.locator('.verb').textContent()).toBe('deploy');
    expect(await deploy.locator('td').nth(4).textContent()).toBe('failed');
    expect(await deploy.locator('td').nth(3).locator('code').getAttribute('title')).toBe('service payments-api');
    await checkPage(page, 'operations-summary');
  }, TEST_TIMEOUT);

  it("does not call an SDK agent's record of the hook's shape 'allowed by the hook': it says nothing of its outcome", async () => {
    const { res } = await sdkChain.submit(api, hookRecord('Bash', 'make deploy'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await page.goto(`/operations?agent_id=${encodeURIComponent(sdkAgentId)}`);
    await heading('Operations').waitFor();
    const row = page.getByRole('table', { name: /matching the filters/ }).locator('tbody tr').first();
    await row.waitFor({ timeout: 30_000 });
    expect(await row.locator('.verb').textContent()).toBe('Bash');
    expect(await row.locator('td').nth(4).textContent()).toBe('—');
    await row.locator('summary').click();
    expect(await row.locator('details dd').last().textContent()).toBe('not recorded');
    await checkPage(page, 'operations-sdk-record');
    await page.setViewportSize({ width: 390, height: 844 });
    await checkPage(page, 'operations-sdk-record-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  }, TEST_TIMEOUT);

  it("lists the agent's recent operations newest first, saying what each did", async () => {
    await page.goto(`/agents/${encodeURIComponent(agentId)}`);
    await heading(`Agent ${agentId}`).waitFor();
    const items = page.getByRole('list', { name: 'Recent operations, newest first' }).locator('li');
    await items.nth(2).waitFor({ timeout: 30_000 });
    expect(await items.count()).toBe(3);
    expect(await items.locator('.verb').allTextContents()).toEqual(['deploy', 'Bash', 'Read']);
    expect(await items.nth(1).locator('summary code').getAttribute('title')).toBe(LONG_COMMAND);
    await checkPage(page, 'agent-recent');
  }, TEST_TIMEOUT);

  it('shows a record submitted while the agent page is open, without a reload', async () => {
    const before = page.url();
    const id = await submit(hookRecord('Write', 'src/payments/refund.ts'));
    const items = page.getByRole('list', { name: 'Recent operations, newest first' }).locator('li');
    await page.locator(`li[data-operation="${id}"]`).waitFor({ timeout: LIVE_TIMEOUT });
    expect(await items.first().getAttribute('data-operation')).toBe(id);
    expect(await items.first().locator('.verb').textContent()).toBe('Write');
    await page.getByRole('status').filter({ hasText: '1 new operation arrived.' }).waitFor();
    // The head, the chain strip and the charts follow too, not only the list.
    await page.getByText(`seq_no ${chain.seqNo}, chain_hash`).waitFor({ timeout: LIVE_TIMEOUT });
    await page.locator(`.chain-strip[data-head="${chain.seqNo}"]`).waitFor({ timeout: LIVE_TIMEOUT });
    expect(page.url()).toBe(before);
    await checkPage(page, 'agent-live');
  }, TEST_TIMEOUT);

  it('shows a record submitted while the operations list is open, and stops following when Live is off', async () => {
    await page.goto(`/operations?agent_id=${encodeURIComponent(agentId)}`);
    await heading('Operations').waitFor();
    await page.getByRole('table', { name: /matching the filters/ }).waitFor();
    const id = await submit(hookRecord('WebFetch', 'https://docs.example.test/refunds'));
    await page.locator(`tr[data-arrived="${id}"]`).waitFor({ timeout: LIVE_TIMEOUT });
    expect(await page.locator(`tr[data-arrived="${id}"] .verb`).textContent()).toBe('WebFetch');
    await checkPage(page, 'operations-live');

    await page.getByLabel('Live: follow new records').uncheck();
    const unseen = await submit(hookRecord('Bash', 'git push'));
    // Live off: nothing polls, so the record stays out even after the longest first delay.
    await page.waitForTimeout(5_000);
    expect(await page.locator(`tr[data-arrived="${unseen}"]`).count()).toBe(0);
    await page.getByLabel('Live: follow new records').check();
    await page.locator(`tr[data-arrived="${unseen}"]`).waitFor({ timeout: LIVE_TIMEOUT });
  }, 2 * TEST_TIMEOUT);

  it('draws the chain from seq_no 1 to the head, the sealed part told apart from the open tail', async () => {
    const head = chain.seqNo;
    // Every operation of the organization (this agent's only) in an epoch: the whole chain sealed.
    for (const deadline = Date.now() + 30_000; ; ) {
      const epochs = (await api('GET', '/v1/epochs?limit=100')).body.epochs as { leaf_count: number }[];
      if (epochs.reduce((sum, epoch) => sum + epoch.leaf_count, 0) >= head) break;
      if (Date.now() > deadline) throw new Error('operations were not sealed in time');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await page.goto(`/agents/${encodeURIComponent(agentId)}`);
    await heading(`Agent ${agentId}`).waitFor();
    const strip = page.locator('.chain-strip');
    await strip.waitFor({ timeout: 30_000 });
    expect([await strip.getAttribute('data-head'), await strip.getAttribute('data-sealed')]).toEqual([String(head), String(head)]);
    await page.getByRole('img', { name: `Chain strip: seq_no 1 to ${head}: 1 to ${head} sealed in epochs, no open tail.` }).waitFor();
    await checkPage(page, 'agent-chain');
  }, TEST_TIMEOUT);

  it("erases an operation's payload behind a confirmation, and every proof still verifies", async () => {
    const id = await submit(hookRecord('Bash', 'export AWS_SECRET_ACCESS_KEY=leaked && ./deploy.sh'));
    await page.goto(`/operations/${id}`);
    await heading('Operation').waitFor();
    await page.getByRole('button', { name: 'Erase payload' }).click();
    const dialog = page.getByRole('dialog', { name: "Erase this operation's payload for good?" });
    await dialog.getByLabel('Reason').fill('a secret the agent leaked into a tool call');
    await checkPage(page, 'operation-erase-dialog');
    await dialog.getByRole('button', { name: 'Erase payload' }).click();
    await page.locator('[data-erased]').getByText('a secret the agent leaked into a tool call').waitFor();
    const got = await api('GET', `/v1/operations/${id}`);
    expect(got.body.payload).toBeUndefined();
    expect(got.body.payload_erased).toMatchObject({ reason: 'a secret the agent leaked into a tool call' });
    const verified = await api('POST', `/v1/operations/${id}/verify`);
    expect(verified.body.valid).toBe(true);
    await checkPage(page, 'operation-erased');
  }, TEST_TIMEOUT);

  it('shows a payload deleted in storage behind the service as missing, and its signature check failing', async () => {
    const id = await submit(hookRecord('Bash', 'cat ~/.aws/credentials'));
    const { operation } = (await api('GET', `/v1/operations/${id}`)).body;
    // An insider with write access to the table drops the row's copy, with no erasure mark.
    await tamperPayload(operation.org_id, id, null);
    await page.goto(`/operations/${id}`);
    await heading('Operation').waitFor();
    await page.locator('[data-destroyed]').waitFor();
    const signature = page.locator('[data-check="signature"]');
    await signature.locator('.check-reason').getByText('neither stored nor erased').waitFor();
    expect(await signature.getAttribute('class')).toContain('check-failed');
    await checkPage(page, 'operation-payload-destroyed');
  }, TEST_TIMEOUT);
});

describe('a way forward from the empty overview', () => {
  it('shows the commands that connect an agent, with this URL and the picked tool, then says when the first record arrived', async () => {
    const owner = await signedInUser(stack.baseUrl, 'Newcomer');
    const onboarded = await stack.call('POST', '/v1/onboarding/organization', { token: owner.session, body: { org_name: 'Fresh start' } });
    expect(onboarded.status).toBe(201);
    const fresh = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB' });
    expect((await fresh.request.post('/api/auth/sign-in/email', { data: { email: owner.email, password: PASSWORD } })).status()).toBe(200);
    const newcomer = await fresh.newPage();
    await newcomer.goto('/');
    await newcomer.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const connect = newcomer.getByRole('region', { name: 'Connect an agent' });
    await connect.waitFor({ timeout: 30_000 });
    const origin = new URL(stack.baseUrl).origin;
    const commands = () => connect.locator('pre code').allTextContents();
    // This stack serves no client files (console/test/connect-agent.browser.test.ts has them): the panel says so.
    await connect.getByText('This service does not hand out its CLI').waitFor();
    expect(await commands()).toEqual([`agent-ledger login --url ${origin}`, 'agent-ledger agent init --tool claudecode']);
    // The picker holds the CLI's 15 tool flags; picking one changes the command.
    const picker = connect.getByRole('combobox', { name: 'Coding tool' });
    expect(await picker.locator('option').count()).toBe(15);
    await picker.selectOption('codex');
    expect((await commands())[1]).toBe('agent-ledger agent init --tool codex');
    expect(await connect.getByRole('button', { name: 'Copy the agent init command' }).isVisible()).toBe(true);
    expect(await connect.getByRole('button', { name: 'Copy the login command' }).isVisible()).toBe(true);
    expect(await connect.getByRole('link', { name: 'Create an API token' }).getAttribute('href')).toBe('/tokens');
    await connect.getByText('Waiting for the first record').waitFor();
    await checkPage(newcomer, 'overview-connect');

    // An agent connects and its first record arrives while the page is open.
    const minted = await stack.call('POST', '/v1/auth/token', { token: owner.session, body: {} });
    const freshApi = apiClient(stack.baseUrl, minted.json.token);
    const key = newKey('k1');
    const firstAgent = uniqueAgentId('first');
    await registerAgent(freshApi, firstAgent, [key]);
    const { res } = await new ClientChain(onboarded.json.org_id, firstAgent, key).submit(freshApi, hookRecord('Bash', 'npm test'));
    expect(res.status).toBe(200);
    await connect.getByText(/^The first record arrived: Bash npm test from agent/).waitFor({ timeout: LIVE_TIMEOUT });
    await checkPage(newcomer, 'overview-first-record');
    await fresh.close();
  }, 2 * TEST_TIMEOUT);
});

describe('the verification link lands in the console', () => {
  it('verifies and shows the sign-in page saying so; opened again, it says the link was already used', async () => {
    // Signed up through the API without a callbackURL: the mail's bare link must still land on a page.
    const user = await signedInUser(stack.baseUrl, 'Mailbox', { verified: false });
    const link = await verificationLink(user.email);
    expect(new URL(link).searchParams.has('callbackURL')).toBe(false);
    const visitor = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB' });
    const tab = await visitor.newPage();
    await tab.goto(link);
    await tab.getByText('Your email address is verified. Sign in to continue.').waitFor();
    expect(new URL(tab.url()).pathname).toBe('/sign-in');
    await checkPage(tab, 'sign-in-verified');

    // Opened again: good news, not an error, and no "not verified ... is verified" contradiction.
    await tab.goto(link);
    await tab.getByRole('status').filter({ hasText: 'This link was used already: your email address is verified. Sign in to continue.' }).waitFor();
    expect(await tab.getByRole('alert').count()).toBe(0);
    expect(await tab.getByText('not verified').count()).toBe(0);
    await checkPage(tab, 'sign-in-link-used');

    await tab.goto('/api/auth/verify-email?token=cut-short');
    await tab.getByRole('alert').filter({ hasText: 'This verification link is not one we know' }).waitFor();
    await visitor.close();
  }, TEST_TIMEOUT);

  it('confirms the verification to someone already signed in, on the overview', async () => {
    const user = await signedInUser(stack.baseUrl, 'Signed In', { verified: false });
    const onboarded = await stack.call('POST', '/v1/onboarding/personal', { token: user.session });
    expect(onboarded.status).toBe(201);
    const visitor = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB' });
    expect((await visitor.request.post('/api/auth/sign-in/email', { data: { email: user.email, password: PASSWORD } })).status()).toBe(200);
    const tab = await visitor.newPage();
    await tab.goto(await verificationLink(user.email));
    await tab.getByRole('status').filter({ hasText: 'Your email address is verified.' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe('/');
    expect(await tab.getByText('Sign in to continue').count()).toBe(0);
    await visitor.close();
  }, TEST_TIMEOUT);
});

describe('what the sign-in and sign-up forms say', () => {
  it('a wrong password is called that, not an ended session; a taken address offers to sign in', async () => {
    const user = await signedInUser(stack.baseUrl, 'Forgetful');
    const visitor = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB' });
    const tab = await visitor.newPage();
    await tab.goto(`/sign-in?email=${encodeURIComponent(user.email)}`);
    await tab.getByLabel('Password').fill('not-the-password');
    await tab.getByRole('button', { name: 'Sign in' }).click();
    const alert = tab.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('The email or the password is wrong. Check both and try again.');

    await tab.goto('/sign-up');
    await tab.getByLabel('Name').fill('Again');
    await tab.getByLabel('Email').fill(user.email);
    await tab.getByLabel('Password').fill('another-password-1');
    await tab.getByRole('button', { name: 'Create account' }).click();
    await tab.getByRole('alert').filter({ hasText: 'An account with this email already exists.' }).waitFor();
    await tab.getByRole('link', { name: 'Sign in with it' }).click();
    await tab.getByRole('heading', { level: 1, name: 'Sign in to agent-ledger' }).waitFor();
    expect(await tab.getByLabel('Email').inputValue()).toBe(user.email);
    await visitor.close();
  }, TEST_TIMEOUT);
});
