/**
 * Items owned by the local identity provider, the stand-in for Cognito on one machine
 * (docs/ARCHITECTURE.md, Local stack): its user directory (email → scrypt hash) and the one-time codes
 * of the development OAuth provider page. They live in the service's table, under keys no
 * other item uses; in AWS none of them exist. The provider's logic (hashing, PKCE checks,
 * expiry) is in adapters/local/; this module only reads and writes the items.
 *
 * | item                | pk                               | sk          |
 * |---------------------|----------------------------------|-------------|
 * | credential          | LOCALIDP#<lower-cased email>     | CREDENTIAL  |
 * | dev OAuth code      | LOCALIDP#CODE#<sha256 of code>   | CODE        |  TTL 5 minutes
 * | verification token  | LOCALIDP#VERIFY#<sha256 of token>| VERIFY      |  TTL 24 hours, single use (kept, marked used_at, until the TTL)
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SocialProvider } from '../shared/social-provider.js';
import { dynamo } from './clients.js';
import { getItem, table, takeItem, writeIfCondition } from './dynamo.js';

export const localIdpKeys = {
  credential: (email: string) => ({ pk: `LOCALIDP#${email.toLowerCase()}`, sk: 'CREDENTIAL' }),
  devCode: (codeHash: string) => ({ pk: `LOCALIDP#CODE#${codeHash}`, sk: 'CODE' }),
  verification: (tokenHash: string) => ({ pk: `LOCALIDP#VERIFY#${tokenHash}`, sk: 'VERIFY' }),
};

export interface CredentialItem {
  subject: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: number;
  /** Set once the owner followed a verification link (absent: not verified). */
  email_verified?: boolean;
}

/** An email verification token in flight; only its SHA-256 is the key, the token itself is in the mail. */
export interface VerificationTokenItem {
  email: string;
  expires_at: number;
  expires_at_s: number;
  /** When the link was followed (absent: not yet); a used token is kept until its TTL. */
  used_at?: number;
}

export interface DevCodeItem {
  provider: SocialProvider;
  email: string;
  name: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: number;
  expires_at_s: number;
}

/** Creates the credential of a new email; false when the email already has one. */
export async function putCredential(item: CredentialItem): Promise<boolean> {
  return writeIfCondition(() =>
    dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: { ...localIdpKeys.credential(item.email), type: 'local_credential', ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

export const getCredential = (email: string) => getItem<CredentialItem>(localIdpKeys.credential(email));

/** Whether `email` has a password account (a strongly consistent read of its key only). */
export async function hasCredential(email: string): Promise<boolean> {
  const out = await dynamo().send(
    new GetCommand({ TableName: table(), Key: localIdpKeys.credential(email), ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  return out.Item !== undefined;
}

/** Replaces a password hash, only if it is still `oldHash` (a concurrent change of the password wins). */
export async function replacePasswordHash(email: string, oldHash: string, newHash: string): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: localIdpKeys.credential(email),
        UpdateExpression: 'SET password_hash = :new',
        ConditionExpression: 'password_hash = :old',
        ExpressionAttributeValues: { ':new': newHash, ':old': oldHash },
      }),
    ),
  );
}

/** Records a verified address on its credential; an email without one is left alone. */
export async function markCredentialVerified(email: string): Promise<void> {
  await writeIfCondition(() =>
    dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: localIdpKeys.credential(email),
        UpdateExpression: 'SET email_verified = :true',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true },
      }),
    ),
  );
}

export async function putVerificationToken(tokenHash: string, item: VerificationTokenItem): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...localIdpKeys.verification(tokenHash), type: 'local_verification', ...item } }));
}

export async function putDevCode(codeHash: string, item: DevCodeItem): Promise<void> {
  await dynamo().send(new PutCommand({ TableName: table(), Item: { ...localIdpKeys.devCode(codeHash), type: 'dev_oauth_code', ...item } }));
}

/**
 * Marks a verification token used and returns it; 'used' when it was used before, 'unknown'
 * when there is no such token (never issued, or removed by the table's TTL after expiry). The
 * conditional write makes it single-use even when two requests race; the used item stays until
 * its TTL so a second click can be told "already used" rather than "unknown".
 */
export async function useVerificationToken(tokenHash: string, now: number): Promise<VerificationTokenItem | 'used' | 'unknown'> {
  const key = localIdpKeys.verification(tokenHash);
  let item: VerificationTokenItem | undefined;
  const first = await writeIfCondition(async () => {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
        ExpressionAttributeValues: { ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    item = out.Attributes as VerificationTokenItem;
  });
  if (first && item) return item;
  return (await getItem(key)) ? 'used' : 'unknown';
}
export const takeDevCode = (codeHash: string) => takeItem<DevCodeItem>(localIdpKeys.devCode(codeHash));
