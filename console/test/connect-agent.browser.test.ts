/**
 * The "Connect an agent" panel of a fresh organization, in Chromium against the local stack serving
 * the client files this checkout builds (lib/client-files/build.ts): it says to install the CLI
 * with `npm install -g <origin>/client/agent-ledger-<version>.tgz` and the Python package with
 * `pip install <origin>/client/agent_ledger-<version>-py3-none-any.whl`, each with the SHA-256
 * /client/index.json lists, then the login and init commands of the installed CLI (no npx). At a
 * desktop (1280 px) and a phone (390 px) width, on the overview and the agents page, the page
 * passes axe-core and the layout checks (test/support/layout-checks.ts); screenshots go to
 * console/test-results/screenshots/connect-agent-<page>-<width>.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientIndex } from '../../client/src/package/served-index.js';
import { clientFiles } from '../../lib/client-files/build.js';
import { checkPage, launchChromium } from '../../test/support/browser.js';
import { orgOwner, TEST_PASSWORD } from '../../test/support/identity-flows.js';
import { useLedgerStack } from '../../test/support/ledger-stack.js';
import { layoutProblems, WIDTHS, type WidthName } from '../../test/support/layout-checks.js';
import { builtConsole } from './support/console-build.js';

const TEST_TIMEOUT = 120_000;
let dist: string;
beforeAll(async () => {
  dist = await builtConsole();
}, 120_000);
const clientDir = clientFiles({ wheel: 'required' });
const index = JSON.parse(readFileSync(join(clientDir, 'index.json'), 'utf8')) as ClientIndex;
const stack = useLedgerStack(() => ({ consoleDir: dist, clientDir }));

let browser: Browser;
let email: string;
beforeAll(async () => {
  email = (await orgOwner(stack.baseUrl, 'Connect an agent')).email;
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe('the Connect an agent panel', () => {
  for (const width of Object.keys(WIDTHS) as WidthName[]) {
    it(`at ${WIDTHS[width].width} px: install from this service's URLs with their SHA-256, then login and init; fits and passes axe`, async () => {
      const context = await browser.newContext({ baseURL: stack.baseUrl, locale: 'en-GB', viewport: WIDTHS[width] });
      expect((await context.request.post('/api/auth/sign-in/email', { data: { email, password: TEST_PASSWORD } })).status()).toBe(200);
      const page = await context.newPage();
      const origin = new URL(stack.baseUrl).origin;
      const [npm, wheel] = (['npm', 'wheel'] as const).map((kind) => index.files.find((file) => file.kind === kind)!);
      const problems: string[] = [];
      for (const [name, path, heading] of [
        ['overview', '/', 'Overview'],
        ['agents', '/agents', 'Agents'],
      ] as const) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        const connect = page.getByRole('region', { name: 'Connect an agent' });
        await connect.getByRole('button', { name: 'Copy the npm install command' }).waitFor({ timeout: 30_000 });
        expect(await connect.locator('pre code').allTextContents()).toEqual([
          `npm install -g ${origin}/client/${npm!.name}`,
          `agent-ledger login --url ${origin}`,
          'agent-ledger agent init --tool claudecode',
          `pip install ${origin}/client/${wheel!.name}`,
        ]);
        expect(await connect.locator('.digest').allTextContents()).toEqual([`SHA-256 of ${npm!.name}: ${npm!.sha256}`, `SHA-256 of ${wheel!.name}: ${wheel!.sha256}`]);
        expect(await connect.getByRole('button', { name: 'Copy the pip install command' }).isVisible()).toBe(true);
        expect(await page.locator('main').textContent()).not.toContain('npx agent-ledger');
        problems.push(...(await layoutProblems(page)).map((problem) => `${name} at ${WIDTHS[width].width}px: ${problem}`));
        await checkPage(page, `connect-agent-${name}-${width}`);
      }
      expect(problems).toEqual([]);
      await context.close();
    }, TEST_TIMEOUT);
  }
});
