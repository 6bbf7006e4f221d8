/**
 * The Cognito user pool of lib/identity.ts and its wiring: only functions whose route uses
 * 'identity' get the pool's variables and the Admin* grant; social providers exist only
 * when their context is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambdas/config.js';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { DEFAULT_SENDER_WARNING, IDENTITY_ACTIONS } from '../../lib/identity.js';
import { actionsOf, arnOf, inRootTerms, logicalId, refOf, resolvedValue, resourceOf, rootStatementsOf, defaultSynth, StubLambdas, synthesize, type Synthesized } from './support.js';

// Template JSON is walked ad hoc in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CfnResource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };

const SOCIAL_CONTEXT = {
  publicUrl: 'https://ledger.example.com',
  cognitoDomainPrefix: 'ledger-example',
  googleClientId: 'google-client',
  googleClientSecretName: 'ledger/google-client-secret',
  githubClientId: 'github-client',
  githubClientSecretName: 'ledger/github-client-secret',
  githubOidcIssuer: 'https://github-oidc.example.com',
};

/** A route that uses identity and one that does not keep the variants quick to synthesize. */
const SMALL_ROUTES: RouteSpec[] = [routes.signUp, routes.health];

let stubs: StubLambdas;
let synth: Synthesized;
let social: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas(routeList, workerList);
  synth = defaultSynth();
  social = synthesize({ lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] }, SOCIAL_CONTEXT);
});
afterAll(() => stubs?.remove());

const resourcesOf = (s: Synthesized) => s.template.toJSON().Resources as Record<string, CfnResource>;
const ofType = (s: Synthesized, type: string) => Object.entries(resourcesOf(s)).filter(([, resource]) => resource.Type === type);
const functionOf = (s: Synthesized, spec: RouteSpec) => s.stack.api.routes.find((candidate) => candidate.spec.id === spec.id)!.function;
/** A route function's environment, in the terms of the root template. */
const variablesOf = (s: Synthesized, spec: RouteSpec) => {
  const fn = functionOf(s, spec).function;
  return inRootTerms(fn, resourceOf(fn).Properties.Environment.Variables as Record<string, unknown>);
};

describe('user pool', () => {
  it('is made for the API contract: admin-created users, email sign-in, 8-character passwords, retained', () => {
    const [[, pool]] = ofType(synth, 'AWS::Cognito::UserPool') as [[string, CfnResource]];
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      UsernameConfiguration: { CaseSensitive: false },
      DeletionProtection: 'ACTIVE',
      Policies: { PasswordPolicy: { MinimumLength: 8, RequireLowercase: false, RequireUppercase: false, RequireNumbers: false, RequireSymbols: false } },
    });
  });

  it('has a public app client for USER_PASSWORD_AUTH that hides which users exist, and no OAuth without providers', () => {
    const [[, client]] = ofType(synth, 'AWS::Cognito::UserPoolClient') as [[string, CfnResource]];
    expect(client.Properties.GenerateSecret).toBe(false);
    expect(client.Properties.ExplicitAuthFlows).toEqual(expect.arrayContaining(['ALLOW_USER_PASSWORD_AUTH']));
    expect(client.Properties.ExplicitAuthFlows).not.toContain('ALLOW_ADMIN_USER_PASSWORD_AUTH');
    expect(client.Properties.PreventUserExistenceErrors).toBe('ENABLED');
    expect(client.Properties.AllowedOAuthFlows).toBeUndefined();
    expect(ofType(synth, 'AWS::Cognito::UserPoolIdentityProvider')).toEqual([]);
    expect(ofType(synth, 'AWS::Cognito::UserPoolDomain')).toEqual([]);
  });
});

describe('functions', () => {
  const poolArn = () => arnOf(synth.stack.identity.userPool);

  it("gives exactly the routes that use 'identity' the pool's variables, which config.ts accepts", () => {
    const identityRoutes = routeList.filter((spec) => spec.uses.includes('identity'));
    expect(identityRoutes.map((spec) => spec.id).sort()).toEqual([
      'AuthProviders',
      'SendVerificationEmail',
      'SignInEmail',
      'SignInSocial',
      'SignUpEmail',
      'SocialCallback',
      'VerifyEmail',
    ]);
    for (const spec of routeList.filter((route) => route.localOnly !== true)) {
      const variables = variablesOf(synth, spec);
      if (!spec.uses.includes('identity')) {
        expect(Object.keys(variables).filter((name) => /IDENTITY|USER_POOL|SOCIAL/.test(name)), spec.id).toEqual([]);
        continue;
      }
      expect(variables, spec.id).toMatchObject({
        LEDGER_IDENTITY: 'cognito',
        LEDGER_USER_POOL_ID: refOf(synth.stack.identity.userPool),
        LEDGER_USER_POOL_CLIENT_ID: refOf(synth.stack.identity.client),
      });
      const resolved = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : resolvedValue(name)]));
      expect(parseConfig(resolved).identity).toMatchObject({ kind: 'cognito', domain: undefined, socialProviders: [] });
    }
  });

  it("grants the Admin* calls of sign-up on this pool only, and nothing of Cognito to other routes", () => {
    for (const spec of routeList.filter((route) => route.localOnly !== true)) {
      const statements = rootStatementsOf(functionOf(synth, spec));
      const cognito = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('cognito-idp:')));
      if (!spec.uses.includes('identity')) {
        expect(cognito, spec.id).toEqual([]);
        continue;
      }
      expect(cognito.map((statement) => [statement.Effect, statement.Resource]), spec.id).toEqual([['Allow', poolArn()]]);
      expect(cognito.flatMap(actionsOf).sort(), spec.id).toEqual([...IDENTITY_ACTIONS].sort());
    }
  });
});

describe('social providers from context', () => {
  it('creates Google and GitHub (a generic OIDC provider behind an OIDC proxy) with a hosted UI domain', () => {
    const providers = ofType(social, 'AWS::Cognito::UserPoolIdentityProvider').map(([, provider]) => provider.Properties);
    expect(providers.map((provider) => [provider.ProviderName, provider.ProviderType]).sort()).toEqual([
      ['GitHub', 'OIDC'],
      ['Google', 'Google'],
    ]);
    const github = providers.find((provider) => provider.ProviderName === 'GitHub')!;
    expect(github.ProviderDetails).toMatchObject({ client_id: 'github-client', oidc_issuer: 'https://github-oidc.example.com' });
    const [[, domain]] = ofType(social, 'AWS::Cognito::UserPoolDomain') as [[string, CfnResource]];
    expect(domain.Properties.Domain).toBe('ledger-example');
  });

  it('keeps client secrets out of the template: Secrets Manager references resolved at deploy time', () => {
    const providers = ofType(social, 'AWS::Cognito::UserPoolIdentityProvider').map(([, provider]) => JSON.stringify(provider.Properties.ProviderDetails.client_secret));
    expect(providers).toHaveLength(2);
    for (const secret of providers) expect(secret).toMatch(/resolve:secretsmanager:ledger\/(google|github)-client-secret/);
  });

  it('lets the app client use the code flow with callbacks on the public URL, and tells the functions', () => {
    const [[, client]] = ofType(social, 'AWS::Cognito::UserPoolClient') as [[string, CfnResource]];
    expect(client.Properties).toMatchObject({
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      CallbackURLs: ['https://ledger.example.com/api/auth/callback/google', 'https://ledger.example.com/api/auth/callback/github'],
      SupportedIdentityProviders: ['Google', 'GitHub'],
    });
    const variables = variablesOf(social, routes.signUp);
    expect(variables.LEDGER_SOCIAL_PROVIDERS).toBe('google,github');
    // The hosted UI host: <domain prefix>.auth.<region>.amazoncognito.com.
    expect(variables.LEDGER_USER_POOL_DOMAIN).toEqual({
      'Fn::Join': ['', [{ Ref: logicalId(social.stack.identity.domain!) }, '.auth.', { Ref: 'AWS::Region' }, '.amazoncognito.com']],
    });
  });

  it('creates only the providers whose client is configured', () => {
    const googleOnly = synthesize(
      { lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] },
      { publicUrl: 'https://ledger.example.com', cognitoDomainPrefix: 'p', googleClientId: 'g', googleClientSecretName: 's' },
    );
    expect(ofType(googleOnly, 'AWS::Cognito::UserPoolIdentityProvider').map(([, provider]) => provider.Properties.ProviderName)).toEqual(['Google']);
  });

  it('refuses half a configuration at synth time', () => {
    const build = (context: Record<string, string>) => () => synthesize({ lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] }, context);
    expect(build({ googleClientId: 'g', googleClientSecretName: 's' })).toThrow(/publicUrl and cognitoDomainPrefix/);
    expect(build({ ...SOCIAL_CONTEXT, githubOidcIssuer: '' })).toThrow(/githubOidcIssuer/);
    expect(build({ ...SOCIAL_CONTEXT, publicUrl: 'http://insecure.example.com' })).toThrow(/https URL/);
  });
});

describe('mail', () => {
  const SES = {
    sesFromAddress: 'ledger@mail.example.com',
    sesIdentityArn: 'arn:aws:ses:eu-west-1:123456789012:identity/example.com',
  };
  const build = (context: Record<string, string>) => synthesize({ lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] }, context);
  const emailConfiguration = (s: Synthesized) => resourceOf(s.stack.identity.userPool).Properties.EmailConfiguration;

  it('sends through SES from the configured address when context names a verified identity, without a warning', () => {
    const ses = synthesize({ lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] }, SES, { keepWarnings: true });
    expect(emailConfiguration(ses)).toEqual({ EmailSendingAccount: 'DEVELOPER', From: SES.sesFromAddress, SourceArn: SES.sesIdentityArn });
    expect(Annotations.fromStack(ses.stack).findWarning('*', Match.stringLikeRegexp('default sender'))).toEqual([]);
    const addressIdentity = build({ sesFromAddress: 'Ops@Example.com', sesIdentityArn: 'arn:aws:ses:us-east-1:123456789012:identity/ops@example.com' });
    expect(emailConfiguration(addressIdentity)).toMatchObject({ From: 'Ops@Example.com' });
  });

  it("warns at synth that Cognito's default sender is for trials only when no identity is configured", () => {
    const plain = synthesize({ lambdasDir: stubs.dir, routes: SMALL_ROUTES, workers: [] }, {}, { keepWarnings: true });
    expect(emailConfiguration(plain)).toBeUndefined();
    const warnings = Annotations.fromStack(plain.stack).findWarning('*', Match.stringLikeRegexp('default sender, which is meant for trials'));
    expect(warnings.map((warning) => warning.id)).toEqual([`/${plain.stack.node.id}/Identity/UserPool`]);
    expect(DEFAULT_SENDER_WARNING).toMatch(/trials/);
    expect(DEFAULT_SENDER_WARNING).toMatch(/sesFromAddress and sesIdentityArn/);
  });

  it('refuses half a configuration, a malformed identity and an address the identity does not cover', () => {
    expect(() => build({ sesFromAddress: SES.sesFromAddress })).toThrow(/sesFromAddress and sesIdentityArn go together/);
    expect(() => build({ sesIdentityArn: SES.sesIdentityArn })).toThrow(/go together/);
    expect(() => build({ ...SES, sesIdentityArn: 'arn:aws:ses:eu-west-1:123456789012:configuration-set/x' })).toThrow(/sesIdentityArn/);
    expect(() => build({ ...SES, sesFromAddress: 'ledger@example.org' })).toThrow(/not an address of the SES identity example.com/);
    expect(() => build({ ...SES, sesFromAddress: 'ledger@notexample.com' })).toThrow(/not an address/);
    expect(() => build({ sesFromAddress: 'a@example.com', sesIdentityArn: 'arn:aws:ses:us-east-1:123456789012:identity/b@example.com' })).toThrow(/not an address/);
  });
});
