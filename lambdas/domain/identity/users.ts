/**
 * Our user item for a person the identity provider vouches for. New users start as docs/API.md
 * §2.7 says: no organization, role org_owner (what they become by creating one), status
 * active, onboarding not completed.
 */
import type { UserItem } from '../../store/identity-items.js';
import { createUser, findUserByEmail, markEmailVerified } from '../../store/users.js';
import { isLedgerError } from '../../shared/errors.js';
import type { ProviderIdentity } from '../ports.js';

export function newUser(identity: ProviderIdentity, now: number): UserItem {
  return {
    user_id: crypto.randomUUID(),
    email: identity.email.toLowerCase(),
    name: identity.name,
    email_verified: identity.emailVerified,
    image: identity.image,
    org_id: null,
    role: 'org_owner',
    status: 'active',
    onboarding_completed: 0,
    created_at: now,
    updated_at: now,
    idp_subject: identity.subject,
  };
}

/**
 * The user for an identity the provider has just confirmed, created when it is the first
 * time we see that person (a provider user made outside our sign-up, or a sign-up whose
 * second step failed), and marked verified once the provider says the address is.
 */
export async function userForIdentity(identity: ProviderIdentity, now: number): Promise<UserItem> {
  const existing = await findUserByEmail(identity.email);
  if (existing) {
    if (identity.emailVerified && !existing.email_verified) {
      await markEmailVerified(existing.user_id, now);
      return { ...existing, email_verified: true, updated_at: now };
    }
    return existing;
  }
  const user = newUser(identity, now);
  try {
    await createUser(user);
    return user;
  } catch (error) {
    // Created by a concurrent sign-in of the same person: use theirs.
    const raced = isLedgerError(error) ? await findUserByEmail(identity.email) : undefined;
    if (raced) return raced;
    throw error;
  }
}
