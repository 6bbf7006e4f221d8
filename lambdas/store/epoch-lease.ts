/**
 * One sealer per organization at a time. EventBridge may invoke a scheduled target twice, and
 * a slow run may still be going when the next one starts; two sealers with slightly
 * different views (a different `now`, a late operation seen by one only) could otherwise
 * carry the same late operation into two different windows.
 *
 * Layout: pk `ORG#<org>#SEALER`, sk `LEASE`, with the holder and an expiry. The expiry is
 * past the holder's Lambda deadline, when the holder is certainly dead, so a crashed run
 * blocks the organization only until then.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients.js';
import { table, writeIfCondition } from './dynamo.js';

const leaseKey = (orgId: string) => ({ pk: `ORG#${orgId}#SEALER`, sk: 'LEASE' });

/** Takes the organization's lease for `holder` until `until`, unless someone else holds an unexpired one. */
export async function acquireSealLease(orgId: string, holder: string, now: number, until: number): Promise<boolean> {
  return writeIfCondition(() =>
    dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: { ...leaseKey(orgId), type: 'epoch_lease', holder, lease_until: until },
        ConditionExpression: 'attribute_not_exists(pk) OR lease_until < :now OR holder = :holder',
        ExpressionAttributeValues: { ':now': now, ':holder': holder },
      }),
    ),
  );
}

/** Gives the lease back, if `holder` still has it. */
export async function releaseSealLease(orgId: string, holder: string): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new DeleteCommand({
        TableName: table(),
        Key: leaseKey(orgId),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    ),
  );
}
