/**
 * POST /api/auth/sign-up/email (docs/API.md §4.1): the provider registers the credentials and
 * sends the verification mail; we create the user. No session yet (token null). The mail's
 * link leads to GET /api/auth/verify-email, then to callbackURL when one is given (Better
 * Auth's sign-up takes it too; same policy as social sign-in).
 */
import type { UserItem } from '../../store/identity-items.js';
import { createUser, emailTaken, userIdByEmail } from '../../store/users.js';
import { countClientAttempt } from '../rate-limit/client-address-throttle.js';
import { checkCallbackUrl } from './callback-url.js';
import { verificationUrl } from './email-verification.js';
import { newUser } from './users.js';
import type { Ports } from '../ports.js';

/** The verification link leads to GET /api/auth/verify-email on LEDGER_PUBLIC_URL (email-verification.ts). */
export async function signUp(
  { identity: provider }: Pick<Ports, 'identity'>,
  input: { name: string; email: string; password: string; callbackURL?: string | undefined },
  clientAddress: string | undefined,
  now = Date.now(),
): Promise<UserItem> {
  const email = input.email.trim().toLowerCase();
  await countClientAttempt('sign-up', clientAddress, now);
  const callbackUrl = input.callbackURL === undefined ? undefined : checkCallbackUrl(input.callbackURL);
  // Checked first so a taken email does not reach the provider (and mails no one); the
  // conditional write in createUser decides races.
  if (await userIdByEmail(email)) throw emailTaken();
  const identity = await provider.register({
    email,
    password: input.password,
    name: input.name,
    verificationUrl: verificationUrl(callbackUrl),
  });
  const user = newUser(identity, now);
  await createUser(user);
  return user;
}
