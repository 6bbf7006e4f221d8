/**
 * A real browser for the console's tests: Debian's Chromium driven by playwright-core (its own
 * browser download cannot run here, and CI installs chromium itself: .ci/run), an axe-core
 * check of the page as it stands, and a screenshot of it into console/test-results/screenshots/
 * (gitignored; kept after the run, three of them copied into docs/screenshots/ for the README and docs/CONSOLE.md).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const SCREENSHOTS = fileURLToPath(new URL('../../console/test-results/screenshots/', import.meta.url));

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * No axe-core violation on the page (WCAG 2.2 A and AA rules and axe's best practices), then a
 * full-page screenshot named `name`. Violations are reported with their rule, impact and nodes.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  // Legacy mode runs axe-core in the page itself. The default injects it again into a blank page
  // of its own to merge the results of cross-origin frames, which the console has none of: the
  // same rules on the same document, in half the time (about 1.2 s a page against 2.4 s here).
  const results = await new AxeBuilder({ page }).setLegacyMode().withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
  const violations = results.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
  expect(violations, `axe-core on ${name}`).toEqual([]);
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}
