/**
 * POST /api/auth/sign-in/email (docs/API.md §4.1). A wrong password and an unknown email give
 * the same UNAUTHORIZED with the same message (and the provider spends the same hashing
 * work on both); attempts per email are throttled (domain/rate-limit/sign-in-throttle.ts).
 */
import type { UserItem } from '../../store/identity-items.js';
import { LedgerError } from '../../shared/errors.js';
import { countClientAttempt } from '../rate-limit/client-address-throttle.js';
import { releaseSignInAttempt, reserveSignInAttempt } from '../rate-limit/sign-in-throttle.js';
import { createSession, type IssuedSession } from './tokens.js';
import { userForIdentity } from './users.js';
import type { Ports } from '../ports.js';

export async function signInWithPassword(
  { identity: provider }: Pick<Ports, 'identity'>,
  input: { email: string; password: string },
  clientAddress: string | undefined,
  now = Date.now(),
): Promise<{ user: UserItem; session: IssuedSession }> {
  const email = input.email.trim().toLowerCase();
  // The address first: an address over its limit spends no one's per-email attempts.
  await countClientAttempt('sign-in', clientAddress, now);
  // Reserved before the password is looked at: the attempt counts as a failure unless it succeeds.
  await reserveSignInAttempt(email, now);
  const identity = await provider.verifyPassword(email, input.password);
  if (!identity) throw new LedgerError('UNAUTHORIZED', 'invalid email or password');
  await releaseSignInAttempt(email, now);
  const user = await userForIdentity(identity, now);
  return { user, session: await createSession(user.user_id, now) };
}
