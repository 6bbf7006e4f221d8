/**
 * The two ways a user is shown: the session-provider user object of docs/API.md §2.7 (auth
 * routes under /api/auth, ISO 8601 times, camelCase as the provider names them) and the
 * profile of GET /v1/auth/me (ms times, snake_case).
 */
import type { UserItem } from '../../store/identity-items.js';
import type { Role } from '../../shared/roles.js';

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: string;
  updatedAt: string;
  org_id: string | null;
  role: Role;
  status: 'active';
  onboarding_completed: 0 | 1;
}

export function sessionUser(user: UserItem): SessionUser {
  return {
    id: user.user_id,
    email: user.email,
    name: user.name,
    emailVerified: user.email_verified,
    image: user.image,
    createdAt: new Date(user.created_at).toISOString(),
    updatedAt: new Date(user.updated_at).toISOString(),
    org_id: user.org_id,
    role: user.role,
    status: user.status,
    onboarding_completed: user.onboarding_completed,
  };
}

export interface Profile {
  user: {
    user_id: string;
    org_id: string | null;
    email: string;
    display_name: string;
    role: Role;
    status: 'active';
    created_at: number;
    updated_at: number;
    onboarding_completed: boolean;
  };
  /** org_name: GET /v1/auth/me only (beyond the original contract, docs/API.md §2.7). */
  current_organization: { org_id: string; ba_org_id: string; role: Role; org_name?: string } | null;
  /** GET /v1/auth/me only: the token the request came with (docs/API.md §2.7). */
  credential?: { kind: 'session' | 'api'; token_id: string; name: string | null; expires_at: number | null };
}

/**
 * docs/API.md §2.7 profile. ba_org_id is "the identifier in the provider"; organizations live
 * only in this service (Cognito has none), so it is the org_id itself.
 */
export function profile(user: UserItem): Profile {
  return {
    user: {
      user_id: user.user_id,
      org_id: user.org_id,
      email: user.email,
      display_name: user.name,
      role: user.role,
      status: user.status,
      created_at: user.created_at,
      updated_at: user.updated_at,
      onboarding_completed: user.onboarding_completed === 1,
    },
    current_organization: user.org_id ? { org_id: user.org_id, ba_org_id: user.org_id, role: user.role } : null,
  };
}
