/**
 * Users and the unique email index (identity-items.ts layout). A user is created with its
 * email index entry in one transaction whose condition makes the email unique (docs/API.md §4.1:
 * an existing email is VALIDATION_ERROR 409), whatever the identity provider says.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conflict } from '../shared/errors.js';
import { dynamo } from './clients.js';
import { identityKeys, type UserItem } from './identity-items.js';
import { getItem, table } from './dynamo.js';
import { transact } from './guarded-transact.js';

export function emailTaken(): ReturnType<typeof conflict> {
  return conflict('an account with this email already exists');
}

export const getUser = (userId: string) => getItem<UserItem>(identityKeys.user(userId));

/** The user id registered for an email (case-insensitive), if any. */
export async function userIdByEmail(email: string): Promise<string | undefined> {
  return (await getItem<{ user_id: string }>(identityKeys.email(email)))?.user_id;
}

export async function findUserByEmail(email: string): Promise<UserItem | undefined> {
  const userId = await userIdByEmail(email);
  return userId ? getUser(userId) : undefined;
}

/** Writes a new user and claims its email; a claimed email is VALIDATION_ERROR 409. */
export async function createUser(user: UserItem): Promise<void> {
  await transact([
    {
      item: {
        Put: {
          TableName: table(),
          Item: { ...identityKeys.user(user.user_id), type: 'user', ...user },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      item: {
        Put: {
          TableName: table(),
          Item: { ...identityKeys.email(user.email), type: 'email', user_id: user.user_id },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: emailTaken,
    },
  ]);
}

/** Records that the identity provider now vouches for the user's address. */
export async function markEmailVerified(userId: string, now: number): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: identityKeys.user(userId),
      UpdateExpression: 'SET email_verified = :true, updated_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':true': true, ':now': now },
    }),
  );
}
