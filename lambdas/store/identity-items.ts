/**
 * DynamoDB item layout of identity and organization data (docs/ARCHITECTURE.md, Data). Every module
 * that reads or writes these items goes through these key builders and types, so the
 * layout is described once.
 *
 * | item        | pk                          | sk                  |
 * |-------------|-----------------------------|---------------------|
 * | user        | USER#<user_id>              | USER                |
 * | email index | EMAIL#<lower-cased email>   | EMAIL               |  (unique email: conditional put)
 * | token       | TOKEN#<sha256 of token>     | TOKEN               |
 * | token record| ORG#<org_id>                | TOKEN#<token_id>    |  gsi1: ORG#<org>#TOKENS / <created_at ms>#<token_id>  (API tokens: list and revoke)
 * | token use   | TOKENUSE#<token_id>         | USE                 |  when the token was last used (every route writes it: lib/grants.ts table:token-use)
 * | org         | ORG#<org_id>                | ORG                 |
 * | member      | ORG#<org_id>                | MEMBER#<user_id>    |
 * | invitation  | ORG#<org_id>                | INVITE#<id>         |  gsi1: INVITEE#<lower-cased email> / <created_at ms>#<id>
 * | assignment  | ORG#<org_id>#AGENT#<agent>  | ASSIGN#<user_id>    |  gsi1: ORG#<org>#USER#<user>#ASSIGN / <agent>
 * | OAuth state | OAUTH#<sha256 of state>     | OAUTH               |  one social sign-in in flight, TTL 10 min
 *
 * Items owned by one adapter keep their layout in that adapter: the local identity
 * provider's credentials and dev-provider codes (local-identity.ts)
 * and the rate counters (rate-counters.ts).
 *
 * Users and tokens exist before an organization does, so their keys cannot start with the
 * org; they carry `org_id` and every read checks it against the caller's. Invitations are
 * found by invitee through gsi1 and carry their org_id for the same reason.
 */
import type { Role } from '../shared/roles.js';
import type { TokenKind } from '../shared/token-format.js';
import { padMs } from './dynamo.js';

/** The partition prefix of token-use items, the only ones lib/grants.ts lets every route write. */
export const TOKEN_USE_PREFIX = 'TOKENUSE#';

export const identityKeys = {
  user: (userId: string) => ({ pk: `USER#${userId}`, sk: 'USER' }),
  email: (email: string) => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: 'EMAIL' }),
  token: (hash: string) => ({ pk: `TOKEN#${hash}`, sk: 'TOKEN' }),
  org: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'ORG' }),
  member: (orgId: string, userId: string) => ({ pk: `ORG#${orgId}`, sk: `MEMBER#${userId}` }),
  invitation: (orgId: string, invitationId: string) => ({ pk: `ORG#${orgId}`, sk: `INVITE#${invitationId}` }),
  /** gsi1 partition of the invitations addressed to one email (GET /v1/invitations). */
  invitee: (email: string) => `INVITEE#${email.toLowerCase()}`,
  /** gsi1 sort key of an invitation: newest last. */
  inviteeOrder: (createdAt: number, invitationId: string) => `${padMs(createdAt)}#${invitationId}`,
  /** An API token's record in its organization (store/token-records.ts): what GET /v1/auth/tokens lists. */
  tokenRecord: (orgId: string, tokenId: string) => ({ pk: `ORG#${orgId}`, sk: `TOKEN#${tokenId}` }),
  /** gsi1 partition of an organization's token records, newest last by `tokenOrder`. */
  orgTokens: (orgId: string) => `ORG#${orgId}#TOKENS`,
  tokenOrder: (createdAt: number, tokenId: string) => `${padMs(createdAt)}#${tokenId}`,
  tokenUse: (tokenId: string) => ({ pk: `${TOKEN_USE_PREFIX}${tokenId}`, sk: 'USE' }),
  oauthState: (stateHash: string) => ({ pk: `OAUTH#${stateHash}`, sk: 'OAUTH' }),
  assignment: (orgId: string, agentId: string, userId: string) => ({
    pk: `ORG#${orgId}#AGENT#${agentId}`,
    sk: `ASSIGN#${userId}`,
  }),
  /** gsi1 partition of one user's assignments in an org (GET /v1/members/:user_id/agents). */
  userAssignments: (orgId: string, userId: string) => `ORG#${orgId}#USER#${userId}#ASSIGN`,
};

export interface UserItem {
  user_id: string;
  email: string;
  name: string;
  email_verified: boolean;
  image: string | null;
  org_id: string | null;
  role: Role;
  status: 'active';
  onboarding_completed: 0 | 1;
  created_at: number;
  updated_at: number;
  /** The identity provider's subject of the person (Cognito `sub`); absent for seeded users. */
  idp_subject?: string;
  /**
   * A fresh id each time the user joins an organization (onboarding or an accepted
   * invitation), removed when they leave. API tokens carry the one they were issued under,
   * so a token of an earlier membership never works again, not even after the person is
   * re-invited into the same organization (domain/auth/caller-lookup.ts).
   */
  membership_id?: string;
}

export interface TokenItem {
  token_id: string;
  kind: TokenKind;
  user_id: string;
  created_at: number;
  /** Unix ms; null = no expiry (API tokens without ttl_seconds). */
  expires_at: number | null;
  /** Set when the token was rotated or ended; it keeps working until grace_until (ms), if set. */
  revoked_at?: number;
  grace_until?: number;
  /** DynamoDB TTL (seconds): removal some time after the token can no longer work. */
  expires_at_s?: number;
  /**
   * API tokens: the organization the token was issued in (docs/API.md §4.1 "needs a current
   * organization"). The token stops working once its user is in another organization or
   * none, so removing a member ends their API tokens. Absent: follows the user (sessions).
   */
  org_id?: string | null;
  /** API tokens: the membership (UserItem.membership_id) they were issued under; absent for users who joined before memberships had ids. */
  membership_id?: string;
  /** API tokens: the lifetime asked for, so a rotated token gets the same (null = no expiry). */
  ttl_seconds?: number | null;
  /** Set on rotation: the id of the token that replaced this one. */
  replaced_by?: string;
  /** API tokens: the name given at issue (POST /v1/auth/token `name`), if any. */
  name?: string;
  /** Set when someone revoked the token (DELETE /v1/auth/tokens/:id): who. */
  revoked_by?: string;
  /** API tokens issued with a token record (TokenRecordItem); older ones have none and are not listed. */
  listed?: true;
}

/**
 * An API token's record in its organization's partition: the token's public facts, the hash
 * that finds its token item (only a hash: the token itself is never stored), and how it ended.
 * It mirrors the token item's end (revoked_at, grace_until, revoked_by, replaced_by) in the
 * same transaction, so a list never shows a token working that does not, or the reverse.
 */
export interface TokenRecordItem {
  token_id: string;
  org_id: string;
  user_id: string;
  name: string | null;
  created_at: number;
  /** Unix ms or null. */
  expires_at: number | null;
  token_hash: string;
  /** The token this one replaced by rotation, if any. */
  replaces?: string;
  replaced_by?: string;
  revoked_at?: number;
  grace_until?: number;
  revoked_by?: string;
  expires_at_s?: number;
}

export interface OrgItem {
  org_id: string;
  org_name: string;
  description: string | null;
  created_at: number;
  updated_at: number;
  created_by: string;
  /** Number of agent assignments; > 0 switches on the read_all rule (docs/API.md §5). Kept in the same transaction as each assignment change. */
  assignment_count: number;
  /** Number of org_owner members; a condition `owner_count > 1` keeps the last owner from being demoted or removed, even under concurrent requests. */
  owner_count: number;
  /** A new agent key must carry its proof of possession (docs/API.md §2.7); absent (organizations made before the setting) is false. */
  require_key_proof?: boolean;
  /** The longest lifetime a new API token may have, in seconds (docs/API.md §2.7); absent: no cap. */
  max_token_ttl_seconds?: number;
}

export interface MemberItem {
  member_id: string;
  user_id: string;
  role: Role;
  joined_at: string;
  email: string;
  display_name: string;
}

type InvitationStatus = 'pending' | 'accepted' | 'cancelled';

/** docs/API.md §2.9 plus what lookups and expiry need. */
export interface InvitationItem {
  invitation_id: string;
  org_id: string;
  /** As typed by the inviter, lower-cased (docs/API.md §8: up to 256 characters). */
  email: string;
  role: Role;
  status: InvitationStatus;
  inviter_id: string;
  /** ISO 8601 (docs/API.md §2.9). */
  created_at: string;
  expires_at: string;
  /** expires_at in Unix ms, for conditions and filters. */
  expires_at_ms: number;
  gsi1pk: string;
  gsi1sk: string;
  /** DynamoDB TTL (seconds): removal a while after expiry. */
  expires_at_s?: number;
}

/** docs/API.md §2.6; gsi1 lists one user's assignments. */
export interface AssignmentItem {
  id: string;
  agent_id: string;
  user_id: string;
  org_id: string;
  assigned_by: string;
  created_at: number;
  gsi1pk: string;
  gsi1sk: string;
}

/** A social sign-in between POST /api/auth/sign-in/social and the provider's callback. */
export interface OAuthStateItem {
  provider: 'google' | 'github';
  callback_url: string;
  redirect_uri: string;
  /** PKCE verifier (RFC 7636); only our server ever sees it. */
  code_verifier: string;
  expires_at: number;
  expires_at_s: number;
}
