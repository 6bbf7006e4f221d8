/**
 * POST /api/auth/sign-in/email (SPEC.md §4.1). A wrong password and an unknown email give
 * the same UNAUTHORIZED with the same message (and the provider spends the same hashing
 * work on both); failures per email are throttled (domain/rate-limit/sign-in-throttle.ts).
 */
import type { UserItem } from '../../store/identity-items.js';
import { LedgerError } from '../../shared/errors.js';
import { assertSignInAllowed, clearSignInFailures, recordSignInFailure } from '../rate-limit/sign-in-throttle.js';
import { createSession, type IssuedSession } from './tokens.js';
import { userForIdentity } from './users.js';
import type { Ports } from '../ports.js';

export async function signInWithPassword(
  { identity: provider }: Pick<Ports, 'identity'>,
  input: { email: string; password: string },
  now = Date.now(),
): Promise<{ user: UserItem; session: IssuedSession }> {
  const email = input.email.trim().toLowerCase();
  await assertSignInAllowed(email, now);
  const identity = await provider.verifyPassword(email, input.password);
  if (!identity) {
    await recordSignInFailure(email, now);
    throw new LedgerError('UNAUTHORIZED', 'invalid email or password');
  }
  await clearSignInFailures(email, now);
  const user = await userForIdentity(identity, now);
  return { user, session: await createSession(user.user_id, now) };
}
