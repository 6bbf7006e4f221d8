/**
 * Organizations, members, invitations and assignments (identity-items.ts layout): reads,
 * and the transaction items the domain (domain/orgs/) composes into one TransactWriteItems
 * with its admin event. Every key starts with the caller's organization (docs/ARCHITECTURE.md, "Tenancy
 * is in the key"), except the invitee index, whose items carry their org_id.
 */
import type { Role } from '../shared/roles.js';
import {
  identityKeys,
  type AssignmentItem,
  type InvitationItem,
  type MemberItem,
  type OrgItem,
} from './identity-items.js';
import { getItem, prefixQuery, queryAll, strip, table, type Key, type TransactItem } from './dynamo.js';

export { batchGet } from './dynamo.js';

export const getOrg = (orgId: string) => getItem<OrgItem>(identityKeys.org(orgId));
export const getMember = (orgId: string, userId: string) => getItem<MemberItem>(identityKeys.member(orgId, userId));
export const getAssignment = (orgId: string, agentId: string, userId: string) =>
  getItem<AssignmentItem>(identityKeys.assignment(orgId, agentId, userId));

export async function listMembers(orgId: string): Promise<MemberItem[]> {
  return (await queryAll(prefixQuery(`ORG#${orgId}`, 'MEMBER#'))).map((item) => strip<MemberItem>(item));
}

export async function listOrgInvitations(orgId: string): Promise<InvitationItem[]> {
  return (await queryAll(prefixQuery(`ORG#${orgId}`, 'INVITE#'))).map((item) => strip<InvitationItem>(item));
}

/** Invitations addressed to an email, in any organization (gsi1, eventually consistent). */
export async function listInvitationsFor(email: string): Promise<InvitationItem[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': identityKeys.invitee(email) },
  });
  return items.map((item) => strip<InvitationItem>(item));
}

export async function listAgentAssignments(orgId: string, agentId: string): Promise<AssignmentItem[]> {
  return (await queryAll(prefixQuery(`ORG#${orgId}#AGENT#${agentId}`, 'ASSIGN#'))).map((item) => strip<AssignmentItem>(item));
}

/** The ids of the agents assigned to a user (gsi1, eventually consistent): the read_all rule's scope. */
export async function assignedAgentIds(orgId: string, userId: string): Promise<string[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': identityKeys.userAssignments(orgId, userId) },
    ProjectionExpression: 'agent_id',
  });
  return items.map((item) => String(item.agent_id));
}

export async function listUserAssignments(orgId: string, userId: string): Promise<AssignmentItem[]> {
  const items = await queryAll({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': identityKeys.userAssignments(orgId, userId) },
  });
  return items.map((item) => strip<AssignmentItem>(item));
}

// ---- transaction items ----

/** The organization's editable fields, as PATCH /v1/organization sets them. */
export interface OrgChanges {
  org_name?: string | undefined;
  description?: string | null | undefined;
  require_key_proof?: boolean | undefined;
  /** null removes the cap. */
  max_token_ttl_seconds?: number | null | undefined;
}

/** Sets the organization's editable fields (PATCH /v1/organization); fails its condition when the org is gone. */
export function orgUpdate(orgId: string, fields: OrgChanges, now: number): TransactItem {
  const sets = ['updated_at = :now'];
  const values: Record<string, unknown> = { ':now': now };
  if (fields.org_name !== undefined) {
    sets.push('org_name = :name');
    values[':name'] = fields.org_name;
  }
  if (fields.description !== undefined) {
    sets.push('description = :description');
    values[':description'] = fields.description;
  }
  if (fields.require_key_proof !== undefined) {
    sets.push('require_key_proof = :requireKeyProof');
    values[':requireKeyProof'] = fields.require_key_proof;
  }
  let remove = '';
  if (fields.max_token_ttl_seconds === null) remove = ' REMOVE max_token_ttl_seconds';
  else if (fields.max_token_ttl_seconds !== undefined) {
    sets.push('max_token_ttl_seconds = :maxTokenTtl');
    values[':maxTokenTtl'] = fields.max_token_ttl_seconds;
  }
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.org(orgId),
      UpdateExpression: `SET ${sets.join(', ')}${remove}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * A condition that the organization still lets a key be registered without a proof of
 * possession (require_key_proof not on): in the transaction that stores an unproven key, so
 * that switching the setting on while the key was on its way refuses the key instead.
 */
export const orgAllowsUnprovenKeys = (orgId: string): TransactItem => ({
  ConditionCheck: {
    TableName: table(),
    Key: identityKeys.org(orgId),
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(require_key_proof) OR require_key_proof = :off)',
    ExpressionAttributeValues: { ':off': false },
  },
});

/**
 * A condition that the organization's token lifetime cap (max_token_ttl_seconds) still allows
 * `ttlSeconds` (null: no expiry): in the transaction that issues the token, so a cap set while
 * the token was on its way refuses it.
 */
export const orgAllowsTokenLifetime = (orgId: string, ttlSeconds: number | null): TransactItem => ({
  ConditionCheck: {
    TableName: table(),
    Key: identityKeys.org(orgId),
    ConditionExpression:
      ttlSeconds === null
        ? 'attribute_exists(pk) AND attribute_not_exists(max_token_ttl_seconds)'
        : 'attribute_exists(pk) AND (attribute_not_exists(max_token_ttl_seconds) OR max_token_ttl_seconds >= :ttl)',
    ...(ttlSeconds === null ? {} : { ExpressionAttributeValues: { ':ttl': ttlSeconds } }),
  },
});

export const orgPut = (org: OrgItem): TransactItem => ({
  Put: { TableName: table(), Item: { ...identityKeys.org(org.org_id), type: 'org', ...org }, ConditionExpression: 'attribute_not_exists(pk)' },
});

export const memberPut = (orgId: string, member: MemberItem): TransactItem => ({
  Put: {
    TableName: table(),
    Item: { ...identityKeys.member(orgId, member.user_id), type: 'member', org_id: orgId, ...member },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const invitationPut = (invitation: InvitationItem): TransactItem => ({
  Put: {
    TableName: table(),
    Item: { ...identityKeys.invitation(invitation.org_id, invitation.invitation_id), type: 'invitation', ...invitation },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * The user joins an organization with a role and completes onboarding (docs/API.md §4.2).
 * Condition: not onboarded and in no organization, so a user is in at most one and
 * onboards once (a second attempt fails the transaction: 409).
 */
export const userJoin = (userId: string, orgId: string, role: Role, now: number): TransactItem => ({
  Update: {
    TableName: table(),
    Key: identityKeys.user(userId),
    // A new membership id: API tokens of any earlier membership stay dead (UserItem.membership_id).
    UpdateExpression: 'SET org_id = :org, #role = :role, onboarding_completed = :one, updated_at = :now, membership_id = :membership',
    ConditionExpression: 'attribute_exists(pk) AND onboarding_completed = :zero AND (attribute_not_exists(org_id) OR attribute_type(org_id, :null))',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':org': orgId, ':role': role, ':one': 1, ':zero': 0, ':now': now, ':null': 'NULL', ':membership': crypto.randomUUID() },
  },
});

/**
 * The user leaves the organization and is back where sign-up left them (docs/API.md §2.7: no
 * organization, role org_owner, onboarding not completed), free to onboard or accept
 * another invitation.
 */
export const userLeave = (userId: string, orgId: string, now: number): TransactItem => ({
  Update: {
    TableName: table(),
    Key: identityKeys.user(userId),
    UpdateExpression: 'SET org_id = :null, #role = :owner, onboarding_completed = :zero, updated_at = :now REMOVE membership_id',
    ConditionExpression: 'org_id = :org',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':org': orgId, ':null': null, ':owner': 'org_owner', ':zero': 0, ':now': now },
  },
});

/** The user's role, kept equal to the member item's in the same transaction (domain/auth/caller-lookup.ts reads the user's). */
export const userRole = (userId: string, orgId: string, role: Role, now: number): TransactItem => ({
  Update: {
    TableName: table(),
    Key: identityKeys.user(userId),
    UpdateExpression: 'SET #role = :role, updated_at = :now',
    ConditionExpression: 'org_id = :org',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':org': orgId, ':role': role, ':now': now },
  },
});

/** Member role change, conditioned on the role it was read with (no lost update). */
export const memberRole = (orgId: string, userId: string, from: Role, to: Role): TransactItem => ({
  Update: {
    TableName: table(),
    Key: identityKeys.member(orgId, userId),
    UpdateExpression: 'SET #role = :to',
    ConditionExpression: '#role = :from',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':from': from, ':to': to },
  },
});

export const memberDelete = (orgId: string, userId: string, role: Role): TransactItem => ({
  Delete: {
    TableName: table(),
    Key: identityKeys.member(orgId, userId),
    ConditionExpression: '#role = :role',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':role': role },
  },
});

/**
 * Changes the org's counters. A negative owner delta is conditioned on more than one owner
 * remaining, which is what keeps the last org_owner in place under concurrent requests.
 */
export function orgCounters(orgId: string, deltas: { owners?: number; assignments?: number }): TransactItem {
  const adds: string[] = [];
  const values: Record<string, number> = {};
  if (deltas.owners) {
    adds.push('owner_count :owners');
    values[':owners'] = deltas.owners;
  }
  if (deltas.assignments) {
    adds.push('assignment_count :assignments');
    values[':assignments'] = deltas.assignments;
  }
  if (adds.length === 0) return exists(identityKeys.org(orgId));
  const guardOwners = (deltas.owners ?? 0) < 0;
  if (guardOwners) values[':keep'] = -(deltas.owners as number);
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.org(orgId),
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ConditionExpression: guardOwners ? 'attribute_exists(pk) AND owner_count > :keep' : 'attribute_exists(pk)',
      ExpressionAttributeValues: values,
    },
  };
}

/** An invitation leaves `pending` (accepted or cancelled), once, and only before it expires when accepted. */
export function invitationStatus(orgId: string, invitationId: string, to: 'accepted' | 'cancelled', now: number): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: identityKeys.invitation(orgId, invitationId),
      UpdateExpression: 'SET #status = :to',
      ConditionExpression: to === 'accepted' ? '#status = :pending AND expires_at_ms > :now' : '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':pending': 'pending', ...(to === 'accepted' ? { ':now': now } : {}) },
    },
  };
}

export const assignmentPut = (assignment: AssignmentItem): TransactItem => ({
  Put: {
    TableName: table(),
    Item: { ...identityKeys.assignment(assignment.org_id, assignment.agent_id, assignment.user_id), type: 'assignment', ...assignment },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const assignmentDelete = (orgId: string, agentId: string, userId: string): TransactItem => ({
  Delete: { TableName: table(), Key: identityKeys.assignment(orgId, agentId, userId), ConditionExpression: 'attribute_exists(pk)' },
});

/** A check, in the transaction, that a user is still a member of the organization with `role`. */
export const memberHolds = (orgId: string, userId: string, role: Role): TransactItem => ({
  ConditionCheck: {
    TableName: table(),
    Key: identityKeys.member(orgId, userId),
    ConditionExpression: '#role = :role',
    ExpressionAttributeNames: { '#role': 'role' },
    ExpressionAttributeValues: { ':role': role },
  },
});

/** A check that an item exists, in the transaction (member for an assignment, agent for an assignment). */
export const exists = (key: Key): TransactItem => ({
  ConditionCheck: { TableName: table(), Key: key, ConditionExpression: 'attribute_exists(pk)' },
});
