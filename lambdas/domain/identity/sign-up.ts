/**
 * POST /api/auth/sign-up/email (SPEC.md §4.1): the provider registers the credentials and
 * sends the verification mail; we create the user. No session yet (token null).
 */
import type { UserItem } from '../../adapters/aws/identity-items.js';
import { createUser, emailTaken, userIdByEmail } from '../../adapters/aws/identity-user-store.js';
import { identityProvider } from '../../runtime.js';
import { newUser } from './users.js';

export async function signUp(input: { name: string; email: string; password: string }, now = Date.now()): Promise<UserItem> {
  const email = input.email.trim().toLowerCase();
  // Checked first so a taken email does not reach the provider (and mails no one); the
  // conditional write in createUser decides races.
  if (await userIdByEmail(email)) throw emailTaken();
  const identity = await identityProvider().register({ email, password: input.password, name: input.name });
  const user = newUser(identity, now);
  await createUser(user);
  return user;
}
