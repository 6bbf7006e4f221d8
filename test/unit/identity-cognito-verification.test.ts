// Email verification through Cognito (adapters/aws/cognito-identity-provider.ts): the code of
// Cognito's mail is redeemed with VerifyUserAttribute using an access token from the refresh
// token kept while the address is unverified; against aws-sdk-client-mock.
import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  GetUserAttributeVerificationCodeCommand,
  InitiateAuthCommand,
  RevokeTokenCommand,
  VerifyUserAttributeCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RefreshTokenStore } from '../../lambdas/adapters/aws/cognito-refresh-tokens.js';
import { CognitoIdentityProvider, verificationToken, type CognitoSettings } from '../../lambdas/adapters/aws/cognito-identity-provider.js';

const cognito = mockClient(CognitoIdentityProviderClient);
const settings: CognitoSettings = { userPoolId: 'eu-west-1_pool', clientId: 'client-123', domain: undefined, socialProviders: [] };

/** The kept refresh tokens, in memory. */
let kept: Map<string, string>;
const memoryStore: RefreshTokenStore = {
  save: async (email, token) => void kept.set(email, token),
  load: async (email) => kept.get(email),
  remove: async (email) => void kept.delete(email),
};

beforeEach(() => {
  cognito.reset();
  kept = new Map();
});

const provider = () => new CognitoIdentityProvider(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), settings, fetch, memoryStore);

function named(name: string): Error {
  return Object.assign(new Error(name), { name });
}

function idToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.signature`;
}

/** Cognito answering REFRESH_TOKEN_AUTH with an access token. */
function refreshable() {
  cognito.on(InitiateAuthCommand, { AuthFlow: 'REFRESH_TOKEN_AUTH' }).resolves({ AuthenticationResult: { AccessToken: 'fresh-access' } });
}

const token = verificationToken('a@example.test', '123456');

describe('keeping the refresh token while the address is unverified', () => {
  it('register keeps the refresh token of the sign-in that asked for the code', async () => {
    cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: [{ Name: 'sub', Value: 'sub-1' }] } });
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    cognito.on(InitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: 'access', RefreshToken: 'refresh-1' } });
    cognito.on(GetUserAttributeVerificationCodeCommand).resolves({});
    await provider().register({ email: 'a@example.test', password: 'password1', name: 'A' });
    expect(kept.get('a@example.test')).toBe('refresh-1');
  });

  it('sign-in keeps a fresh one for an unverified address only', async () => {
    cognito
      .on(InitiateAuthCommand)
      .resolvesOnce({ AuthenticationResult: { IdToken: idToken({ sub: 's', email: 'a@example.test', email_verified: 'false' }), RefreshToken: 'refresh-2' } })
      .resolvesOnce({ AuthenticationResult: { IdToken: idToken({ sub: 's', email: 'b@example.test', email_verified: 'true' }), RefreshToken: 'refresh-3' } });
    expect((await provider().verifyPassword('a@example.test', 'pw'))?.emailVerified).toBe(false);
    expect((await provider().verifyPassword('b@example.test', 'pw'))?.emailVerified).toBe(true);
    expect([...kept]).toEqual([['a@example.test', 'refresh-2']]);
  });
});

describe('confirmEmail', () => {
  it('redeems the code with VerifyUserAttribute, then forgets and revokes the refresh token', async () => {
    kept.set('a@example.test', 'refresh-1');
    refreshable();
    cognito.on(VerifyUserAttributeCommand).resolves({});
    cognito.on(RevokeTokenCommand).resolves({});

    expect(await provider().confirmEmail(token)).toEqual({ email: 'a@example.test' });
    expect(cognito.commandCalls(InitiateAuthCommand)[0]!.args[0].input).toEqual({
      ClientId: 'client-123',
      AuthFlow: 'REFRESH_TOKEN_AUTH',
      AuthParameters: { REFRESH_TOKEN: 'refresh-1' },
    });
    expect(cognito.commandCalls(VerifyUserAttributeCommand)[0]!.args[0].input).toEqual({ AccessToken: 'fresh-access', AttributeName: 'email', Code: '123456' });
    expect(cognito.commandCalls(RevokeTokenCommand)[0]!.args[0].input).toEqual({ ClientId: 'client-123', Token: 'refresh-1' });
    expect(kept.size).toBe(0);
    // Used: a second attempt has nothing to redeem with, and says so.
    expect(await provider().confirmEmail(token)).toEqual({ failure: 'used' });
  });

  it.each([
    ['CodeMismatchException', 'unknown'],
    ['ExpiredCodeException', 'expired'],
  ])('answers why for %s (%s) and keeps the refresh token', async (name, failure) => {
    kept.set('a@example.test', 'refresh-1');
    refreshable();
    cognito.on(VerifyUserAttributeCommand).rejects(named(name));
    expect(await provider().confirmEmail(token)).toEqual({ failure });
    expect(kept.get('a@example.test')).toBe('refresh-1');
  });

  it('answers unknown for a malformed token and used for an address with nothing kept, without calling Cognito', async () => {
    for (const bad of ['', 'no-dot', `${Buffer.from('not an email').toString('base64url')}.123456`, `${Buffer.from('a@example.test').toString('base64url')}.`]) {
      expect(await provider().confirmEmail(bad), bad).toEqual({ failure: 'unknown' });
    }
    // Nothing kept: verified already (the token is forgotten then), or never signed up; both alike.
    expect(await provider().confirmEmail(verificationToken('nobody@example.test', '123456'))).toEqual({ failure: 'used' });
    expect(cognito.calls()).toHaveLength(0);
  });

  it('drops a refresh token Cognito no longer accepts, and calls the link expired', async () => {
    kept.set('a@example.test', 'revoked');
    cognito.on(InitiateAuthCommand).rejects(named('NotAuthorizedException'));
    expect(await provider().confirmEmail(token)).toEqual({ failure: 'expired' });
    expect(kept.size).toBe(0);
  });

  it("turns Cognito's attempt limit into RATE_LIMITED and rethrows other failures", async () => {
    kept.set('a@example.test', 'refresh-1');
    refreshable();
    cognito.on(VerifyUserAttributeCommand).rejectsOnce(named('LimitExceededException')).rejectsOnce(named('InternalErrorException'));
    await expect(provider().confirmEmail(token)).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    await expect(provider().confirmEmail(token)).rejects.toThrow('InternalErrorException');
  });
});

describe('resendVerification', () => {
  it('asks Cognito for a new code with the access token from the kept refresh token', async () => {
    kept.set('a@example.test', 'refresh-1');
    refreshable();
    cognito.on(GetUserAttributeVerificationCodeCommand).resolves({});
    await provider().resendVerification('a@example.test');
    expect(cognito.commandCalls(GetUserAttributeVerificationCodeCommand)[0]!.args[0].input).toEqual({ AccessToken: 'fresh-access', AttributeName: 'email' });
  });

  it('does nothing without a kept refresh token, and never throws (the answer must not tell accounts apart)', async () => {
    await provider().resendVerification('a@example.test');
    expect(cognito.calls()).toHaveLength(0);
    kept.set('a@example.test', 'refresh-1');
    refreshable();
    cognito.on(GetUserAttributeVerificationCodeCommand).rejects(named('LimitExceededException'));
    await expect(provider().resendVerification('a@example.test')).resolves.toBeUndefined();
  });
});
