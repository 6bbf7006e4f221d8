/** Bodies of the authentication and session endpoints (docs/API.md §4.1, §2.7, §8). */
import * as z from 'zod';
import { ROLES } from '../../shared/roles.js';
import { unixMs } from './common.js';

export const roleSchema = z.enum(ROLES).meta({ id: 'Role' });
export const socialProviderSchema = z.enum(['google', 'github']);

/** docs/API.md §2.7 session-provider user object. */
const sessionUserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    emailVerified: z.boolean(),
    image: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    org_id: z.string().nullable(),
    role: roleSchema,
    status: z.literal('active'),
    onboarding_completed: z.union([z.literal(0), z.literal(1)]),
  })
  .meta({ id: 'SessionUser' });

/** docs/API.md §8: passwords of at least 8 characters; the upper bound keeps hashing cheap to ask for. */
export const signUpBody = z.object({
  name: z.string().trim().min(1).max(256),
  email: z.email().max(256),
  password: z.string().min(8).max(256),
  /** Where the verification link sends the browser once verified (callback-url.ts policy). */
  callbackURL: z.string().min(1).max(2048).optional(),
});
export const signUpResponse = z.object({ token: z.null(), user: sessionUserSchema });

/** Both required strings (docs/API.md §4.1); a short password is a wrong one, not a malformed request. */
export const signInBody = z.object({ email: z.string().min(1).max(256), password: z.string().min(1).max(256) });
export const signInResponse = z.object({ redirect: z.literal(false), token: z.string(), user: sessionUserSchema });

export const socialSignInBody = z.object({ provider: socialProviderSchema, callbackURL: z.string().min(1).max(2048) });
export const socialSignInResponse = z.object({ url: z.string(), redirect: z.literal(true) });
/** Which sign-in buttons a sign-in page should show (the console asks before drawing them). */
export const authProvidersResponse = z.object({ social: z.array(socialProviderSchema) });

export const callbackParams = z.object({ provider: socialProviderSchema });
export const callbackQuery = z.object({
  state: z.string().min(1).max(512),
  code: z.string().min(1).max(2048).optional(),
  error: z.string().max(256).optional(),
});

/**
 * Email verification (Better Auth's paths; docs/API.md §4.1 "a verification email is sent").
 * The token is the provider's: a random base64url string locally, `<base64url email>.<code>`
 * with Cognito; both fit in 1024 characters.
 */
export const verifyEmailQuery = z.object({
  token: z.string().min(1).max(1024),
  callbackURL: z.string().min(1).max(2048).optional(),
});
export const verifyEmailResponse = z.object({ status: z.literal(true) });
export const sendVerificationEmailBody = z.object({
  email: z.email().max(256),
  callbackURL: z.string().min(1).max(2048).optional(),
});
export const sendVerificationEmailResponse = z.object({ status: z.literal(true) });

/** docs/API.md §4.1 get-session: null (HTTP 200) without a session. */
export const getSessionResponse = z
  .object({
    session: z.object({ id: z.string(), userId: z.string(), expiresAt: z.iso.datetime() }),
    user: sessionUserSchema,
  })
  .nullable();

export const signOutResponse = z.object({ success: z.literal(true) });

/** docs/API.md §2.7 profile. */
export const profileResponse = z.object({
  user: z.object({
    user_id: z.string(),
    org_id: z.string().nullable(),
    email: z.string(),
    display_name: z.string(),
    role: roleSchema,
    status: z.literal('active'),
    created_at: unixMs,
    updated_at: unixMs,
    onboarding_completed: z.boolean(),
  }),
  current_organization: z.object({ org_id: z.string(), ba_org_id: z.string(), role: roleSchema, org_name: z.string().optional() }).nullable(),
  /** the token this request came with (beyond the original contract, docs/API.md §2.7) */
  credential: z
    .object({
      kind: z.enum(['session', 'api']),
      token_id: z.string(),
      name: z.string().nullable(),
      /** Unix seconds, or null: never expires */
      expires_at: z.number().int().nonnegative().nullable(),
    })
    .optional(),
});

export const refreshResponse = z.object({ token: z.string() });

/** docs/API.md §4.1, §8: 1..31536000 seconds; null or omitted = no expiry. A bare POST is fine too. */
export const apiTokenBody = z
  .object({
    ttl_seconds: z.number().int().min(1).max(31_536_000).nullable().optional(),
    /** beyond the original contract: what the token is for, shown in the token list */
    name: z.string().trim().min(1).max(128).optional(),
  })
  .strict()
  .default({});

const unixSeconds = z.number().int().nonnegative();
export const apiTokenResponse = z.object({ token: z.string(), token_id: z.string(), expires_at: unixSeconds.nullable() });
export const rotateResponse = apiTokenResponse.extend({ previous_token_grace_until: unixSeconds });

/** docs/API.md §2.7 "API token": an API token's public facts (never the token), times in Unix seconds. */
const apiTokenSchema = z
  .object({
    token_id: z.string(),
    name: z.string().nullable(),
    user_id: z.string(),
    status: z.enum(['active', 'rotating', 'rotated', 'revoked', 'expired']),
    created_at: unixSeconds,
    expires_at: unixSeconds.nullable(),
    last_used_at: unixSeconds.nullable(),
    ended_at: unixSeconds.nullable(),
    replaced_by: z.string().nullable(),
  })
  .meta({ id: 'ApiToken' });
export const listTokensQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(512).optional(),
  user_id: z.string().min(1).max(256).optional(),
});
export const listTokensResponse = z.object({ tokens: z.array(apiTokenSchema), next_cursor: z.string().nullable() });
export const tokenParams = z.strictObject({ token_id: z.uuid() });
export const revokeTokenResponse = z.object({ token: apiTokenSchema });

/** The development OAuth provider's page and its "continue" step (local only). */
export const devAuthorizeQuery = z.object({
  provider: socialProviderSchema,
  redirect_uri: z.url().max(2048),
  state: z.string().min(1).max(512),
  code_challenge: z.string().min(43).max(128),
  code_challenge_method: z.literal('S256'),
  response_type: z.literal('code').optional(),
});
export const devContinueQuery = devAuthorizeQuery.extend({
  email: z.email().max(256),
  name: z.string().trim().min(1).max(256),
});
