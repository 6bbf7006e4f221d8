/**
 * The API tokens page in Chromium against the local stack (docs/API.md §4.1, docs/CONSOLE.md):
 * an owner creates a named token, its Copy button puts the secret itself on the clipboard (the
 * clipboard is read back and the token used), finds it in the table, revokes it through the
 * confirmation (cancelled first) and the token is refused from then on; the lifetime choices
 * stay within the organization's cap; a rotation shows in the table; a member sees only their own
 * tokens, a page at a time. The page passes axe-core and fits a desktop and a phone width.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgOwner, signedInUser, TEST_PASSWORD, type SignedIn } from '../../test/support/identity-flows.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { checkPage, launchChromium, SCREENSHOTS } from '../../test/support/browser.js';
import { layoutProblems, WIDTHS, type WidthName } from '../../test/support/layout-checks.js';
import { builtConsole } from './support/console-build.js';

const TEST_TIMEOUT = 120_000;
const DAY = 86_400;
let dist: string;
beforeAll(async () => {
  dist = await builtConsole();
}, 120_000);
const stack = useLedgerStack(() => ({ consoleDir: dist }));

let browser: Browser;
let owner: SignedIn & { orgId: string };
let member: SignedIn;
/** An owner's token minted through the API, for the rotation. */
let toRotate: string;

beforeAll(async () => {
  owner = await orgOwner(stack.baseUrl, 'Token Testing');
  member = await signedInUser(stack.baseUrl, 'Member');
  const invited = await stack.call('POST', '/v1/members/invitations', { token: owner.session, body: { email: member.email, role: 'integration_engineer' } });
  expect(invited.status).toBe(201);
  expect((await stack.call('POST', `/v1/invitations/${invited.json.invitation.invitation_id}/accept`, { token: member.session })).status).toBe(200);
  // 21 tokens of the member's: one more than the console's page of 20.
  for (let i = 1; i <= 21; i++) {
    const minted = await stack.call('POST', '/v1/auth/token', { token: member.session, body: { name: `member-laptop-${i}` } });
    expect(minted.status, minted.text).toBe(200);
  }
  // A long name, for the layout: it wraps within its column.
  expect((await stack.call('POST', '/v1/auth/token', { token: owner.session, body: { name: 'nightly-release-pipeline-of-the-payments-service-in-eu-west-1' } })).status).toBe(200);
  const minted = await stack.call('POST', '/v1/auth/token', { token: owner.session, body: { name: 'rotate-me', ttl_seconds: 30 * DAY } });
  expect(minted.status).toBe(200);
  toRotate = minted.json.token;
  browser = await launchChromium();
}, 120_000);
afterAll(() => browser?.close());

async function signedIn(who: SignedIn, width: WidthName = 'desktop'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB', viewport: WIDTHS[width] });
  // The Copy button writes the clipboard; the test reads it back.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
  expect((await context.request.post('/api/auth/sign-in/email', { data: { email: who.email, password: TEST_PASSWORD } })).status()).toBe(200);
  const page = await context.newPage();
  await page.goto('/tokens');
  await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
  return { context, page };
}

const me = (token: string) => stack.call('GET', '/v1/auth/me', { token });
// Not getByLabel('Name'): that matches "Revoke the token unnamed (…)" too.
const nameField = (page: Page) => page.getByRole('textbox', { name: /^Name/ });
const table = (page: Page) => page.getByRole('table', { name: 'API tokens' });
/** The rows of the tokens named `name` ("unnamed": those without a name). */
const row = (page: Page, name: string) => table(page).locator('tbody tr').filter({ has: page.locator('.token-label', { hasText: new RegExp(`^${name}$`) }) });
const cells = (page: Page, name: string) => row(page, name).first().locator('td').allTextContents();
const selectedLifetime = (page: Page) => page.getByLabel('Lifetime').locator('option:checked').textContent();
const lifetimeChoices = (page: Page) => page.getByLabel('Lifetime').locator('option').allTextContents();

async function fits(page: Page, name: string, width: WidthName): Promise<string[]> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}tokens-${name}-${width}.png`, fullPage: true });
  return (await layoutProblems(page)).map((problem) => `${name} at ${WIDTHS[width].width}px: ${problem}`);
}

describe('the API tokens page', () => {
  it('creates a named token whose Copy button copies the secret, lists it, and revokes it after a confirmation', async () => {
    const { context, page } = await signedIn(owner);
    // No cap on this organization: 90 days first, "No expiry" offered but not chosen.
    await page.getByLabel('Lifetime').waitFor();
    expect(await selectedLifetime(page)).toBe('90 days');
    expect(await lifetimeChoices(page)).toEqual(['1 day', '7 days', '30 days', '90 days', '1 year', 'No expiry']);
    expect(await page.locator('code', { hasText: /^agent-ledger login$/ }).count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain('npx agent-ledger');

    await nameField(page).fill('ci-deploy-bot');
    await page.getByRole('button', { name: 'Create token' }).click();
    const panel = page.getByRole('region', { name: 'Your new API token' });
    await panel.waitFor();
    // The panel's one button copies the token: no id's copy button comes first.
    expect(await panel.getByRole('button').count()).toBe(1);
    const copy = panel.getByRole('button').first();
    expect(await copy.getAttribute('aria-label')).toBe('Copy the token');
    await copy.click();
    await expect.poll(() => copy.textContent()).toContain('Copied');
    // A string, not a function: this file is type-checked without the DOM's types.
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(copied).toMatch(/^alt_/);
    expect(copied).toBe(await panel.locator('code[data-secret]').textContent());
    expect((await me(copied)).status).toBe(200);

    // Listed, newest first, as the owner's own, with the 90 days chosen.
    await row(page, 'ci-deploy-bot').waitFor();
    const [name, ownerCell, status, , expires, , action] = await cells(page, 'ci-deploy-bot');
    expect([ownerCell, status, action]).toEqual(['you', 'active', 'Revoke']);
    expect(name).toMatch(/^ci-deploy-bot[0-9a-f]{8}$/);
    const listed = (await stack.call('GET', '/v1/auth/tokens', { token: owner.session })).json.tokens as { name: string; token_id: string; created_at: number; expires_at: number }[];
    const created = listed.find((t) => t.name === 'ci-deploy-bot')!;
    expect(created.expires_at - created.created_at).toBe(90 * DAY);
    expect(expires).not.toBe('never');
    // The owner sees the member's tokens too, by the member's email, never used.
    await expect.poll(() => cells(page, 'member-laptop-21')).toEqual([expect.stringMatching(/^member-laptop-21[0-9a-f]{8}$/), member.email, 'active', expect.any(String), expect.any(String), 'never', 'Revoke']);

    const words = `“ci-deploy-bot” (${created.token_id.slice(0, 8)})`;
    const dialog = page.getByRole('dialog', { name: `Revoke the token ${words}?` });
    // Cancelled: nothing changes.
    await row(page, 'ci-deploy-bot').getByRole('button', { name: `Revoke the token ${words}` }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await me(copied)).status).toBe(200);
    expect((await cells(page, 'ci-deploy-bot'))[2]).toBe('active');
    // Confirmed: the row says revoked, offers no revoke, and the token is refused.
    await row(page, 'ci-deploy-bot').getByRole('button', { name: `Revoke the token ${words}` }).click();
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expect.poll(async () => (await cells(page, 'ci-deploy-bot'))[2]).toBe('revoked');
    expect(await row(page, 'ci-deploy-bot').getByRole('button').count()).toBe(0);
    expect((await me(copied)).status).toBe(401);
    await checkPage(page, 'tokens-revoked');
    await context.close();
  }, TEST_TIMEOUT);

  it("offers no lifetime beyond the organization's cap, and no \"No expiry\" under one", async () => {
    expect((await stack.call('PATCH', '/v1/organization', { token: owner.session, body: { max_token_ttl_seconds: 60 * DAY } })).status).toBe(200);
    try {
      const { context, page } = await signedIn(owner);
      await page.getByLabel('Lifetime').waitFor();
      expect(await lifetimeChoices(page)).toEqual(['1 day', '7 days', '30 days', "60 days (the organization's limit)"]);
      expect(await selectedLifetime(page)).toBe("60 days (the organization's limit)");
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('region', { name: 'Your new API token' }).waitFor();
      const newest = (await stack.call('GET', '/v1/auth/tokens?limit=1', { token: owner.session })).json.tokens[0];
      expect(newest.name).toBeNull();
      expect(newest.expires_at - newest.created_at).toBe(60 * DAY);
      // Unnamed, it is listed as such.
      await row(page, 'unnamed').first().waitFor();
      await context.close();
    } finally {
      expect((await stack.call('PATCH', '/v1/organization', { token: owner.session, body: { max_token_ttl_seconds: null } })).status).toBe(200);
    }
  }, TEST_TIMEOUT);

  it('shows a rotation in the table: the old token rotating, its replacement active under the same name', async () => {
    const { context, page } = await signedIn(owner);
    await row(page, 'rotate-me').waitFor();
    expect(await row(page, 'rotate-me').count()).toBe(1);
    await page.getByLabel('Token to rotate').fill(toRotate);
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    const panel = page.getByRole('region', { name: 'The replacement token' });
    await panel.waitFor();
    expect(await panel.getByRole('button').first().getAttribute('aria-label')).toBe('Copy the token');
    await expect.poll(() => row(page, 'rotate-me').count()).toBe(2);
    const statuses = await row(page, 'rotate-me').evaluateAll((trs) => trs.map((tr) => tr.querySelector('.status')?.textContent));
    expect(statuses).toEqual(['active', 'rotating']);
    expect((await me(toRotate)).status).toBe(200);
    await context.close();
  }, TEST_TIMEOUT);

  it('shows a member their own tokens only, without an owner column, 20 at a time', async () => {
    const { context, page } = await signedIn(member);
    await row(page, 'member-laptop-21').waitFor();
    expect(await table(page).locator('thead th').allTextContents()).toEqual(['Name', 'Status', 'Created', 'Expires', 'Last used', 'Action']);
    expect(await table(page).locator('tbody tr').count()).toBe(20);
    expect(await row(page, 'ci-deploy-bot').count()).toBe(0);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => table(page).locator('tbody tr').count()).toBe(21);
    expect(await row(page, 'member-laptop-1').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await context.close();
  }, TEST_TIMEOUT);

  it('fits a desktop and a phone width with a new token shown and the table full', async () => {
    const problems: string[] = [];
    for (const width of Object.keys(WIDTHS) as WidthName[]) {
      const { context, page } = await signedIn(owner, width);
      await nameField(page).fill(`layout-${width}`);
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('region', { name: 'Your new API token' }).waitFor();
      await row(page, `layout-${width}`).waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      problems.push(...(await fits(page, 'page', width)));
      // At desktop width the whole table shows, its Revoke buttons included; a phone scrolls it in its own box.
      if (width === 'desktop') {
        const box = await table(page).evaluate((t) => ({ scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth }));
        if (box.scroll > box.client) problems.push(`the table scrolls sideways at desktop width: ${box.scroll}px in ${box.client}px`);
      }
      await context.close();
    }
    expect(problems).toEqual([]);
  }, TEST_TIMEOUT);
});
