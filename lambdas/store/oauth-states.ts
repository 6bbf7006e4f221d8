/**
 * Social sign-ins in flight (identity-items.ts OAuthStateItem): what POST
 * /api/auth/sign-in/social promised, kept until the provider sends the browser back. Keyed
 * by a hash of the OAuth `state`; taken (deleted and returned) exactly once.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256B64u } from '@agent-ledger/protocol';
import { dynamo } from './clients.js';
import { identityKeys, type OAuthStateItem } from './identity-items.js';
import { table, takeItem } from './dynamo.js';

const stateKey = (state: string) => identityKeys.oauthState(sha256B64u(new TextEncoder().encode(state)));

export async function putOAuthState(state: string, item: OAuthStateItem): Promise<void> {
  await dynamo().send(
    new PutCommand({ TableName: table(), Item: { ...stateKey(state), type: 'oauth_state', ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

/** The state's item, removed so it cannot be used twice; undefined when unknown or already used. */
export async function takeOAuthState(state: string): Promise<OAuthStateItem | undefined> {
  return takeItem<OAuthStateItem>(stateKey(state));
}
