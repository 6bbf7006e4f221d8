/**
 * URL mode of the e2e tests (docs/TESTING.md, Acceptance set, docs/DEPLOY.md "Rehearsal"): with
 * LEDGER_TEST_BASE_URL set, useLedgerStack (ledger-stack.ts) boots nothing and every file of
 * the acceptance set (test/acceptance/files.ts) talks to the server already running there:
 * `npm start`, `npm run rehearse -- --serve`, or a deployed stack. What the files would write
 * straight to the table (seed-identity.ts) goes over the API instead (url-identity.ts).
 *
 *   LEDGER_TEST_BASE_URL    the server, e.g. http://127.0.0.1:3000
 *   LEDGER_TEST_MAIL_LOG    the file the server's log goes to: verification links are read
 *                           from its `mail sent` JSON lines (`mail.to`, `mail.link`)
 *   LEDGER_TEST_SERVER_ENV  JSON of the settings the server runs with; a file that asks for
 *                           another value (useLedgerStack's `env`) fails at once instead of
 *                           testing a server configured otherwise
 */
import { readFile } from 'node:fs/promises';
import { randomInt } from 'node:crypto';
import { Agent, setGlobalDispatcher } from 'undici';
import type { TestStack, TestStackOptions } from './test-stack.js';

/** The running server the tests are pointed at, without a trailing slash; undefined in the default (in-process) mode. */
export function testBaseUrl(): string | undefined {
  const url = process.env.LEDGER_TEST_BASE_URL?.trim();
  return url ? url.replace(/\/+$/, '') : undefined;
}

/**
 * Settings of the in-process stack that describe no behaviour of the API: the local
 * provider's password-hash cost (the tests lower it for speed; Cognito hashes its own).
 */
const COST_ONLY = new Set(['LEDGER_SCRYPT_N']);

function checkServerEnv(asked: Record<string, string> = {}): void {
  const declared = process.env.LEDGER_TEST_SERVER_ENV;
  if (!declared) return; // the caller vouches for the server (a deployed stack)
  const server = JSON.parse(declared) as Record<string, string>;
  const differing = Object.entries(asked).filter(([name, value]) => !COST_ONLY.has(name) && server[name] !== value);
  if (differing.length > 0) {
    throw new Error(
      `this file needs ${differing.map(([name, value]) => `${name}=${value}`).join(', ')}; the server at ${testBaseUrl()} runs with ` +
        `${JSON.stringify(server)}. It does not belong in the acceptance set (test/acceptance-files.ts) unless the runner gives the server that setting.`,
    );
  }
}

/**
 * The server limits sign-ups and sign-ins per client address (docs/API.md §8, 50 and 100 per
 * 10 minutes): one shared server sees every file's sign-ups, where each in-process stack had
 * its own counters. On loopback each file connects from an address of its own in 127.0.0.0/8
 * (Linux routes all of it to lo), as separate clients would; a remote server sees the
 * machine's one address and its limits apply to the run as a whole.
 */
function ownLoopbackAddress(baseUrl: string): void {
  const own = newClientAddress(baseUrl);
  if (own) setGlobalDispatcher(own);
}

/**
 * Requests from a loopback address no other request used, when the server is on loopback:
 * url-identity.ts signs each person up and in from one, as people sign in from their own
 * machines (roles.test.ts alone signs in more often than one address may in 10 minutes).
 */
export function newClientAddress(baseUrl: string): Agent | undefined {
  if (!/^127\./.test(new URL(baseUrl).hostname)) return undefined;
  return new Agent({ localAddress: `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}` });
}

const notHere = (what: string) => (): never => {
  throw new Error(`${what} is the in-process stack's; in URL mode (LEDGER_TEST_BASE_URL) only the HTTP API is there. This file is not an acceptance test (test/acceptance-files.ts).`);
};

/** The TestStack of URL mode: the server's address; reaching into its engines throws. */
export function connectToServer(baseUrl: string, options: TestStackOptions): TestStack {
  checkServerEnv(options.env);
  ownLoopbackAddress(baseUrl);
  const stack = { baseUrl, stop: async () => {} } as TestStack;
  for (const name of ['tableName', 'dataBucket', 'anchorsBucket', 'dynamoEndpoint', 's3Endpoint', 'queue', 'stream', 'schedule'] as const) {
    Object.defineProperty(stack, name, { get: notHere(`stack.${name}`) });
  }
  return stack;
}

interface MailLine {
  mail?: { to?: string; link?: string };
}

async function linksInMailLog(email: string): Promise<string[]> {
  const file = process.env.LEDGER_TEST_MAIL_LOG;
  if (!file) throw new Error('URL mode needs LEDGER_TEST_MAIL_LOG, the server log its verification mails are written to');
  const wanted = email.toLowerCase();
  const links: string[] = [];
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const start = line.indexOf('{');
    if (start < 0 || !line.includes('"mail"')) continue;
    try {
      const { mail } = JSON.parse(line.slice(start)) as MailLine;
      if (mail?.to?.toLowerCase() === wanted && mail.link) links.push(mail.link);
    } catch {
      // another line that merely mentions mail
    }
  }
  return links;
}

/**
 * The link of the last verification mail to `email` in the server's log. The line reaches
 * the file after the HTTP answer (the server writes it, the runner copies it; in the
 * rehearsal cognito-local's log comes first, seconds behind on a busy machine), so this
 * waits for a first link, then briefly for a later one still on its way.
 */
export async function mailedLink(email: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const links = await linksInMailLog(email);
    if (links.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return (await linksInMailLog(email)).at(-1)!;
    }
    if (Date.now() > deadline) throw new Error(`no verification mail to ${email} in ${process.env.LEDGER_TEST_MAIL_LOG}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
