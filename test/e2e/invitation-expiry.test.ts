/**
 * Invitations expire after 7 days (docs/API.md §4.4, §8): a week-old invitation, written
 * straight into the table since no request can backdate one, is no longer listed to either
 * side and no longer accepted. Apart from members.test.ts, which runs over HTTP alone.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../../lambdas/config.js';
import { identityKeys } from '../../lambdas/store/identity-items.js';
import { newInvitation } from '../../lambdas/domain/orgs/invitation-items.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { orgOwner, signedInUser } from '../support/identity-flows.js';
import { useLedgerStack } from '../support/ledger-stack.js';

const stack = useLedgerStack();
const call = stack.call;

describe('invitations', () => {
  it('expire after 7 days: no longer listed, no longer accepted', async () => {
    const owner = await orgOwner(stack.baseUrl);
    const invitee = await signedInUser(stack.baseUrl, 'Late');
    const stale = newInvitation({ orgId: owner.orgId, email: invitee.email, role: 'security_admin', inviterId: owner.userId, now: Date.now() - 7 * 86_400_000 - 1000 });
    await dynamo().send(
      new PutCommand({ TableName: config().tableName, Item: { ...identityKeys.invitation(owner.orgId, stale.invitation_id), type: 'invitation', ...stale } }),
    );
    expect((await call('GET', '/v1/invitations', { token: invitee.session })).json.invitations).toEqual([]);
    expect((await call('GET', '/v1/members/invitations', { token: owner.session })).json.invitations).toEqual([]);
    expect((await call('POST', `/v1/invitations/${stale.invitation_id}/accept`, { token: invitee.session })).status).toBe(404);
  });
});
