/** Who is making a request, as resolved from its token (docs/API.md §5). */
import type { Role } from '../../shared/roles.js';
import type { TokenKind } from '../../shared/token-format.js';

export type { TokenKind };

export interface Caller {
  userId: string;
  email: string;
  displayName: string;
  /** Whether the user proved they own `email` (verification mail or a provider that vouches); invitations need it. */
  emailVerified: boolean;
  /** null until the user completes onboarding (docs/API.md §4.2). */
  orgId: string | null;
  /** The user's current role: a token acts with it, so a role change applies on the next request. */
  role: Role;
  tokenKind: TokenKind;
  tokenId: string;
  /** The token's name (API tokens named at issue) and expiry (Unix ms, null for none), for GET /v1/auth/me. */
  tokenName?: string | null;
  tokenExpiresAt?: number | null;
  /** The user's current membership (UserItem.membership_id); API tokens issued now are bound to it. */
  membershipId?: string | undefined;
}

/** A caller that belongs to an organization; what every role-guarded route receives. */
export interface OrgCaller extends Caller {
  orgId: string;
}
