// Identity settings of config.ts: provider choice, Cognito variables, grace period, callback origins.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../lambdas/config.js';

const base = {
  LEDGER_TABLE: 't',
  LEDGER_DATA_BUCKET: 'd',
  LEDGER_ANCHORS_BUCKET: 'a',
  LEDGER_SIGNER_KEY_ID: 'k',
  LEDGER_SECRETS_KEY_ID: 'k',
  LEDGER_QUEUE: 'memory',
};

describe('identity configuration', () => {
  it('defaults: local provider on the local stack, none in AWS; 1 hour grace; any callback origin', () => {
    expect(parseConfig({ ...base, LEDGER_STAGE: 'local' }).identity).toEqual({ kind: 'local' });
    const aws = parseConfig(base);
    expect(aws.identity).toEqual({ kind: 'none' });
    expect(aws.tokenGraceSeconds).toBe(3600);
    expect(aws.authCallbackOrigins).toEqual([]);
  });

  it('cognito needs the pool and client ids; domain and providers are optional', () => {
    expect(() => parseConfig({ ...base, LEDGER_IDENTITY: 'cognito' })).toThrow(/LEDGER_USER_POOL_ID/);
    expect(() => parseConfig({ ...base, LEDGER_IDENTITY: 'cognito', LEDGER_USER_POOL_ID: 'p' })).toThrow(/LEDGER_USER_POOL_CLIENT_ID/);
    expect(
      parseConfig({
        ...base,
        LEDGER_IDENTITY: 'cognito',
        LEDGER_USER_POOL_ID: 'p',
        LEDGER_USER_POOL_CLIENT_ID: 'c',
        LEDGER_USER_POOL_DOMAIN: 'x.auth.eu-west-1.amazoncognito.com',
        LEDGER_SOCIAL_PROVIDERS: 'google, github',
      }).identity,
    ).toEqual({ kind: 'cognito', userPoolId: 'p', clientId: 'c', domain: 'x.auth.eu-west-1.amazoncognito.com', socialProviders: ['google', 'github'] });
    expect(() => parseConfig({ ...base, LEDGER_IDENTITY: 'cognito', LEDGER_USER_POOL_ID: 'p', LEDGER_USER_POOL_CLIENT_ID: 'c', LEDGER_SOCIAL_PROVIDERS: 'facebook' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, LEDGER_IDENTITY: 'ldap' })).toThrow(/LEDGER_IDENTITY/);
  });

  it('LEDGER_TOKEN_GRACE_SECONDS: a non-negative integer', () => {
    expect(parseConfig({ ...base, LEDGER_TOKEN_GRACE_SECONDS: '0' }).tokenGraceSeconds).toBe(0);
    expect(parseConfig({ ...base, LEDGER_TOKEN_GRACE_SECONDS: '90' }).tokenGraceSeconds).toBe(90);
    expect(() => parseConfig({ ...base, LEDGER_TOKEN_GRACE_SECONDS: '-1' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...base, LEDGER_TOKEN_GRACE_SECONDS: '1h' })).toThrow(ConfigError);
  });

  it('LEDGER_DEV_OAUTH: off by default, on with 1 on the local stack, refused anywhere else', () => {
    const local = { ...base, LEDGER_STAGE: 'local' };
    expect(parseConfig(local).devOAuth).toBe(false);
    expect(parseConfig({ ...local, LEDGER_DEV_OAUTH: '1' }).devOAuth).toBe(true);
    expect(parseConfig({ ...local, LEDGER_DEV_OAUTH: '0' }).devOAuth).toBe(false);
    expect(() => parseConfig({ ...base, LEDGER_DEV_OAUTH: '1' })).toThrow(/LEDGER_DEV_OAUTH is for the local stack only/);
    expect(() => parseConfig({ ...local, LEDGER_IDENTITY: 'none', LEDGER_DEV_OAUTH: '1' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...local, LEDGER_DEV_OAUTH: 'yes' })).toThrow(/LEDGER_DEV_OAUTH/);
  });

  it('LEDGER_PUBLIC_URL: an http(s) base URL, kept without its trailing slash', () => {
    expect(parseConfig(base).publicUrl).toBeUndefined();
    expect(parseConfig({ ...base, LEDGER_PUBLIC_URL: 'https://abc.execute-api.eu-west-1.amazonaws.com/' }).publicUrl).toBe(
      'https://abc.execute-api.eu-west-1.amazonaws.com',
    );
    expect(parseConfig({ ...base, LEDGER_PUBLIC_URL: 'https://api.example.com/ledger/' }).publicUrl).toBe('https://api.example.com/ledger');
    for (const bad of ['api.example.com', 'ftp://api.example.com', 'https://u:p@api.example.com', 'https://api.example.com/?x=1']) {
      expect(() => parseConfig({ ...base, LEDGER_PUBLIC_URL: bad }), bad).toThrow(/LEDGER_PUBLIC_URL/);
    }
  });

  it("LEDGER_SCRYPT_N: OWASP's 2^17 by default; a power of two from 2^14 to 2^20", () => {
    expect(parseConfig(base).scryptN).toBe(131072);
    expect(parseConfig({ ...base, LEDGER_SCRYPT_N: '16384' }).scryptN).toBe(16384);
    for (const bad of ['8192', '100000', '2097152', 'x']) expect(() => parseConfig({ ...base, LEDGER_SCRYPT_N: bad }), bad).toThrow(/LEDGER_SCRYPT_N/);
  });

  it('LEDGER_AUTH_CALLBACK_ORIGINS: origins only', () => {
    expect(parseConfig({ ...base, LEDGER_AUTH_CALLBACK_ORIGINS: 'https://app.example.com, http://localhost:5173/' }).authCallbackOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(() => parseConfig({ ...base, LEDGER_AUTH_CALLBACK_ORIGINS: 'https://app.example.com/path' })).toThrow(/origins only/);
    expect(() => parseConfig({ ...base, LEDGER_AUTH_CALLBACK_ORIGINS: 'app.example.com' })).toThrow(ConfigError);
  });
});
