/**
 * Identity e2e building blocks over HTTP: a signed-up, signed-in user (a session token),
 * optionally onboarded. The full flows are what the identity tests exercise, so they use
 * these rather than seeding items.
 */
import { client, uniqueEmail } from './identity-http.js';

export interface SignedIn {
  userId: string;
  email: string;
  name: string;
  session: string;
}

export async function signedInUser(baseUrl: string, name = 'Person'): Promise<SignedIn> {
  const call = client(baseUrl);
  const email = uniqueEmail(name.toLowerCase().replace(/\W+/g, '-'));
  const password = 'password-1234';
  const up = await call('POST', '/api/auth/sign-up/email', { body: { name, email, password } });
  if (up.status !== 200) throw new Error(`sign-up failed: ${up.status} ${up.text}`);
  const inn = await call('POST', '/api/auth/sign-in/email', { body: { email, password } });
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
