/**
 * Who checks passwords and runs social sign-in (domain/ports.ts IdentityProvider): Cognito in
 * AWS, the DynamoDB-backed local provider on one machine (config.ts IdentityConfig). Only the
 * functions of routes that use 'identity' import this module, so no other bundle carries
 * the Cognito client.
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { CognitoIdentityProvider } from '../adapters/aws/cognito-identity-provider.js';
import { tableRefreshTokenStore } from '../adapters/aws/cognito-refresh-tokens.js';
import { LocalIdentityProvider } from '../adapters/local/local-identity-provider.js';
import { config } from '../config.js';
import { sdkClientSettings } from '../sdk-client-settings.js';
import type { IdentityProvider } from '../domain/ports.js';
import { once } from '../shared/once.js';
import { traced } from '../tracer.js';
import { encryptor } from './encryptor.js';

export const identityProvider = once((): IdentityProvider => {
  const source = config().identity;
  if (source.kind === 'local') return new LocalIdentityProvider();
  if (source.kind === 'none') {
    throw new Error("no identity provider configured: this function's route does not use 'identity' (LEDGER_IDENTITY unset)");
  }
  const client = traced(new CognitoIdentityProviderClient({ region: config().region, ...sdkClientSettings(config().stage) }));
  return new CognitoIdentityProvider(client, source, fetch, tableRefreshTokenStore(encryptor));
});
