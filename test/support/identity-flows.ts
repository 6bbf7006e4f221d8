/**
 * Identity e2e building blocks over HTTP: a signed-up, signed-in user (a session token),
 * with the email verified through the verification link unless asked not to, optionally
 * onboarded. The full flows are what the identity tests exercise, so they use these rather
 * than seeding items.
 */
import { sentVerificationLinks } from '../../lambdas/adapters/local/verification-tokens.js';
import type { Dispatcher } from 'undici';
import { client, uniqueEmail } from './http-client.js';
import { mailedLink, testBaseUrl } from './ledger-url.js';

/** The password of every user these flows sign up. */
export const TEST_PASSWORD = 'password-1234';

/**
 * The link of the last verification mail to `email`. The local provider's mail is a log
 * line; the test stack runs in this process, so the adapter's local-development map has it.
 * In URL mode the server's log has it (ledger-url.ts mailedLink).
 */
export async function verificationLink(email: string): Promise<string> {
  if (testBaseUrl()) return mailedLink(email);
  const link = sentVerificationLinks.get(email.toLowerCase());
  if (!link) throw new Error(`no verification mail was sent to ${email}`);
  return link;
}

/** Follows the last verification link mailed to `email` (GET /api/auth/verify-email). */
export async function verifyEmail(baseUrl: string, email: string, from?: Dispatcher): Promise<void> {
  const link = new URL(await verificationLink(email));
  const res = await client(baseUrl)('GET', `${link.pathname}${link.search}`, from ? { dispatcher: from } : {});
  if (res.status !== 200) throw new Error(`email verification failed: ${res.status} ${res.text}`);
}

export interface SignedIn {
  userId: string;
  email: string;
  name: string;
  session: string;
}

export async function signedInUser(
  baseUrl: string,
  name = 'Person',
  options: { verified?: boolean; email?: string; from?: Dispatcher } = {},
): Promise<SignedIn> {
  const call = client(baseUrl);
  const email = options.email ?? uniqueEmail(name.toLowerCase().replace(/\W+/g, '-'));
  const password = TEST_PASSWORD;
  const via = options.from ? { dispatcher: options.from } : {};
  const up = await call('POST', '/api/auth/sign-up/email', { body: { name, email, password }, ...via });
  if (up.status !== 200) throw new Error(`sign-up failed: ${up.status} ${up.text}`);
  if (options.verified !== false) await verifyEmail(baseUrl, email, options.from);
  const inn = await call('POST', '/api/auth/sign-in/email', { body: { email, password }, ...via });
  if (inn.status !== 200) throw new Error(`sign-in failed: ${inn.status} ${inn.text}`);
  return { userId: up.json.user.id, email, name, session: inn.json.token };
}

/** A signed-in user who created an organization; returns its id too. */
export async function orgOwner(baseUrl: string, orgName = 'Acme'): Promise<SignedIn & { orgId: string }> {
  const owner = await signedInUser(baseUrl, 'Owner');
  const res = await client(baseUrl)('POST', '/v1/onboarding/organization', { token: owner.session, body: { org_name: orgName } });
  if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${res.text}`);
  return { ...owner, orgId: res.json.org_id };
}
