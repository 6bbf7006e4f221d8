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
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';
import { dynamo } from './clients.js';

const leaseKey = (orgId: string) => ({ pk: `ORG#${orgId}#SEALER`, sk: 'LEASE' });

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException';
}

/** Takes the organization's lease for `holder` until `until`, unless someone else holds an unexpired one. */
export async function acquireSealLease(orgId: string, holder: string, now: number, until: number): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...leaseKey(orgId), type: 'epoch_lease', holder, lease_until: until },
        ConditionExpression: 'attribute_not_exists(pk) OR lease_until < :now OR holder = :holder',
        ExpressionAttributeValues: { ':now': now, ':holder': holder },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Gives the lease back, if `holder` still has it. */
export async function releaseSealLease(orgId: string, holder: string): Promise<void> {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: config().tableName,
        Key: leaseKey(orgId),
        ConditionExpression: 'holder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
