// The Cognito identity provider adapter (adapters/aws/cognito-identity-provider.ts) against
// aws-sdk-client-mock and a stub of the hosted UI's token endpoint.
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  GetUserAttributeVerificationCodeCommand,
  InitiateAuthCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { CognitoIdentityProvider, type CognitoSettings } from '../../lambdas/adapters/aws/cognito-identity-provider.js';
import { LedgerError } from '../../lambdas/shared/errors.js';

const cognito = mockClient(CognitoIdentityProviderClient);
beforeEach(() => cognito.reset());

const settings: CognitoSettings = {
  userPoolId: 'eu-west-1_pool',
  clientId: 'client-123',
  domain: 'ledger.auth.eu-west-1.amazoncognito.com',
  socialProviders: ['google', 'github'],
};

function named(name: string, message = name): Error {
  return Object.assign(new Error(message), { name });
}

function idToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part(claims)}.signature`;
}

const provider = (fetchFn?: typeof fetch) => new CognitoIdentityProvider(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), settings, fetchFn);

describe('register', () => {
  it('creates a confirmed user with an unverified email, sets the password and sends the verification mail', async () => {
    cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: [{ Name: 'sub', Value: 'sub-1' }] } });
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    cognito.on(InitiateAuthCommand).resolves({ AuthenticationResult: { AccessToken: 'access' } });
    cognito.on(GetUserAttributeVerificationCodeCommand).resolves({});

    const identity = await provider().register({ email: 'a@example.test', password: 'password1', name: 'A' });
    expect(identity).toEqual({ subject: 'sub-1', email: 'a@example.test', name: 'A', emailVerified: false, image: null });
    expect(cognito.commandCalls(AdminCreateUserCommand)[0]!.args[0].input).toMatchObject({
      UserPoolId: 'eu-west-1_pool',
      Username: 'a@example.test',
      MessageAction: 'SUPPRESS',
      UserAttributes: expect.arrayContaining([{ Name: 'email_verified', Value: 'false' }, { Name: 'name', Value: 'A' }]),
    });
    expect(cognito.commandCalls(AdminSetUserPasswordCommand)[0]!.args[0].input).toMatchObject({ Permanent: true, Password: 'password1' });
    expect(cognito.commandCalls(GetUserAttributeVerificationCodeCommand)[0]!.args[0].input).toEqual({ AccessToken: 'access', AttributeName: 'email' });
  });

  it('maps an existing username to VALIDATION_ERROR 409', async () => {
    cognito.on(AdminCreateUserCommand).rejects(named('UsernameExistsException'));
    await expect(provider().register({ email: 'a@example.test', password: 'password1', name: 'A' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 409,
    });
  });

  it("removes the half-made user when the pool refuses the password, and says why", async () => {
    cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: [{ Name: 'sub', Value: 'sub-1' }] } });
    cognito.on(AdminSetUserPasswordCommand).rejects(named('InvalidPasswordException', 'Password not long enough'));
    cognito.on(AdminDeleteUserCommand).resolves({});
    const failure = provider().register({ email: 'a@example.test', password: 'password1', name: 'A' });
    await expect(failure).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(cognito.commandCalls(AdminDeleteUserCommand)).toHaveLength(1);
  });

  it('still succeeds when the verification mail cannot be sent', async () => {
    cognito.on(AdminCreateUserCommand).resolves({ User: { Attributes: [{ Name: 'sub', Value: 'sub-1' }] } });
    cognito.on(AdminSetUserPasswordCommand).resolves({});
    cognito.on(InitiateAuthCommand).rejects(named('LimitExceededException'));
    await expect(provider().register({ email: 'a@example.test', password: 'password1', name: 'A' })).resolves.toMatchObject({ subject: 'sub-1' });
  });
});

describe('verifyPassword', () => {
  it('signs in with USER_PASSWORD_AUTH and reads the identity from the ID token', async () => {
    cognito.on(InitiateAuthCommand).resolves({
      AuthenticationResult: { IdToken: idToken({ sub: 'sub-1', email: 'A@Example.test', email_verified: 'true', name: 'A' }) },
    });
    expect(await provider().verifyPassword('a@example.test', 'pw')).toEqual({
      subject: 'sub-1',
      email: 'a@example.test',
      name: 'A',
      emailVerified: true,
      image: null,
    });
    expect(cognito.commandCalls(InitiateAuthCommand)[0]!.args[0].input).toEqual({
      ClientId: 'client-123',
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: 'a@example.test', PASSWORD: 'pw' },
    });
  });

  it.each(['NotAuthorizedException', 'InvalidPasswordException', 'UserNotFoundException', 'UserNotConfirmedException', 'PasswordResetRequiredException'])(
    'answers null for %s',
    async (name) => {
      cognito.on(InitiateAuthCommand).rejects(named(name));
      expect(await provider().verifyPassword('a@example.test', 'pw')).toBeNull();
    },
  );

  it('answers null for a challenge it cannot complete, and rethrows infrastructure errors', async () => {
    cognito.on(InitiateAuthCommand).resolvesOnce({ ChallengeName: 'NEW_PASSWORD_REQUIRED' }).rejectsOnce(named('InternalErrorException'));
    expect(await provider().verifyPassword('a@example.test', 'pw')).toBeNull();
    await expect(provider().verifyPassword('a@example.test', 'pw')).rejects.toThrow('InternalErrorException');
  });
});

describe('social sign-in through the hosted UI', () => {
  it('builds the authorize URL with the identity provider and PKCE', () => {
    const url = new URL(
      provider().authorizationUrl({ provider: 'github', state: 's', redirectUri: 'https://api.test/api/auth/callback/github', codeChallenge: 'c'.repeat(43) }),
    );
    expect(url.origin + url.pathname).toBe('https://ledger.auth.eu-west-1.amazoncognito.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client-123',
      redirect_uri: 'https://api.test/api/auth/callback/github',
      state: 's',
      identity_provider: 'GitHub',
      scope: 'openid email profile',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
  });

  it('redeems the code at /oauth2/token with the verifier', async () => {
    const requests: { url: string; body: string }[] = [];
    const fetchStub = (async (url: URL, init: RequestInit) => {
      requests.push({ url: String(url), body: String(init.body) });
      return new Response(JSON.stringify({ id_token: idToken({ sub: 'g-1', email: 'g@example.test', email_verified: true, picture: 'https://img' }) }));
    }) as unknown as typeof fetch;
    const identity = await provider(fetchStub).redeemCode({ provider: 'google', code: 'code-1', redirectUri: 'https://api.test/cb', codeVerifier: 'v' });
    expect(identity).toEqual({ subject: 'g-1', email: 'g@example.test', name: 'g@example.test', emailVerified: true, image: 'https://img' });
    expect(requests[0]!.url).toBe('https://ledger.auth.eu-west-1.amazoncognito.com/oauth2/token');
    expect(Object.fromEntries(new URLSearchParams(requests[0]!.body))).toEqual({
      grant_type: 'authorization_code',
      client_id: 'client-123',
      code: 'code-1',
      redirect_uri: 'https://api.test/cb',
      code_verifier: 'v',
    });
  });

  it('turns a refused code into UNAUTHORIZED and a broken endpoint into an error', async () => {
    const answer = (status: number) => (async () => new Response('{"error":"invalid_grant"}', { status })) as unknown as typeof fetch;
    const input = { provider: 'google' as const, code: 'c', redirectUri: 'https://api.test/cb', codeVerifier: 'v' };
    await expect(provider(answer(400)).redeemCode(input)).rejects.toBeInstanceOf(LedgerError);
    await expect(provider(answer(503)).redeemCode(input)).rejects.not.toBeInstanceOf(LedgerError);
  });

  it('supports only providers the pool has, and only with a hosted UI domain', () => {
    expect(provider().supportsSocial('google')).toBe(true);
    const bare = new CognitoIdentityProvider(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), { ...settings, domain: undefined });
    expect(bare.supportsSocial('google')).toBe(false);
    const googleOnly = new CognitoIdentityProvider(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), { ...settings, socialProviders: ['google'] });
    expect(googleOnly.supportsSocial('github')).toBe(false);
  });
});
