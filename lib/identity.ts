/**
 * The Cognito user pool: the identity provider of the service in AWS (docs/ARCHITECTURE.md, Shape).
 * Users are created by the sign-up handler (AdminCreateUser), sign
 * in through the app client (USER_PASSWORD_AUTH), and social sign-in runs through the
 * hosted UI's authorization code flow with PKCE (lambdas/adapters/aws/cognito-identity-provider.ts).
 *
 * Social providers come from CDK context and are created only when their client id and
 * secret are set:
 *
 * | context                    | meaning |
 * |----------------------------|---------|
 * | publicUrl                  | the API's public base URL (custom domain); callback URLs are `<publicUrl>/api/auth/callback/<provider>`. The stack cannot use its own API URL here: the functions need the client id, so the client cannot wait for the API. |
 * | cognitoDomainPrefix        | prefix of the hosted UI domain `<prefix>.auth.<region>.amazoncognito.com` |
 * | googleClientId, googleClientSecretName | Google OAuth client; the secret is read from Secrets Manager at deploy time, never written into the template |
 * | githubClientId, githubClientSecretName, githubOidcIssuer | GitHub (below) |
 * | authCallbackOrigins        | origins social sign-in may redirect to (LEDGER_AUTH_CALLBACK_ORIGINS, comma-separated) |
 * | sesFromAddress, sesIdentityArn | the sender of Cognito's mails and the verified SES identity (address or domain) it belongs to |
 *
 * GitHub speaks OAuth 2.0 but not OpenID Connect (no ID token, no discovery document),
 * and Cognito federates only SAML and OIDC besides its built-in social providers. It is
 * therefore configured as a generic OIDC provider whose issuer (githubOidcIssuer) is an
 * OIDC proxy in front of GitHub, such as the open-source github-cognito-openid-wrapper,
 * deployed separately: it serves /.well-known/openid-configuration, exchanges GitHub's code
 * for a GitHub token and mints the ID token (sub, email, email_verified from GitHub's
 * verified primary address, name, picture) that Cognito maps below.
 */
import { Annotations, Duration, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import type {
  CfnUserPool} from 'aws-cdk-lib/aws-cognito';
import {
  AccountRecovery,
  FeaturePlan,
  Mfa,
  OAuthScope,
  OidcAttributeRequestMethod,
  ProviderAttribute,
  UserPool,
  UserPoolClientIdentityProvider,
  UserPoolIdentityProviderGoogle,
  UserPoolIdentityProviderOidc,
  type IUserPoolIdentityProvider,
  type UserPoolClient,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { SocialProvider } from '../lambdas/domain/ports.js';
import { contextValue, EMAIL_PATTERN, matching } from './settings.js';

/** What the sign-up handler does with the pool; sign-in and social sign-in use public APIs. */
export const IDENTITY_ACTIONS = ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword', 'cognito-idp:AdminDeleteUser'] as const;

/** Names the adapter asks the hosted UI for (cognito-identity-provider.ts COGNITO_PROVIDER_NAMES). */
const PROVIDER_NAMES: Record<SocialProvider, string> = { google: 'Google', github: 'GitHub' };

export interface IdentitySettings {
  readonly publicUrl: string | undefined;
  readonly domainPrefix: string | undefined;
  readonly google: { clientId: string; secretName: string } | undefined;
  readonly github: { clientId: string; secretName: string; issuer: string } | undefined;
  readonly callbackOrigins: string | undefined;
  /** Cognito's mails through SES (context sesFromAddress, sesIdentityArn); undefined = Cognito's default sender. */
  readonly mail: { readonly from: string; readonly identityArn: string } | undefined;
}

/** The id (`cdk synth --strict` fails on it) and the text of the warning while Cognito mails through its default sender. */
export const DEFAULT_SENDER_WARNING_ID = 'agent-ledger:cognito-default-sender';
export const DEFAULT_SENDER_WARNING =
  'Cognito sends verification mails through its default sender, which is meant for trials: it allows 50 mails a day ' +
  'for the whole account, so sign-up verification stops on the first busy day. Verify an address or a domain in ' +
  'Amazon SES and set context sesFromAddress and sesIdentityArn (docs/CONFIGURATION.md, CDK context).';

/** An SES identity ARN; its last part is the verified address or domain. */
const SES_IDENTITY_ARN = /^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/([^/\s]+)$/;

/**
 * Context sesFromAddress and sesIdentityArn, both or neither, with the address belonging to
 * the identity: the identity's own address, or an address of its domain or a subdomain.
 */
function readMail(scope: Construct): IdentitySettings['mail'] {
  const from = matching(scope, 'sesFromAddress', EMAIL_PATTERN, 'an e-mail address');
  const identityArn = matching(scope, 'sesIdentityArn', SES_IDENTITY_ARN, 'the ARN of a verified SES identity (arn:aws:ses:<region>:<account>:identity/<address or domain>)');
  if (from === undefined && identityArn === undefined) return undefined;
  if (from === undefined || identityArn === undefined) throw new Error('context sesFromAddress and sesIdentityArn go together: set both, or neither');
  const identity = (SES_IDENTITY_ARN.exec(identityArn)?.[1] ?? '').toLowerCase();
  const address = from.toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const belongs = identity.includes('@') ? address === identity : domain === identity || domain.endsWith(`.${identity}`);
  if (!belongs) throw new Error(`context sesFromAddress ${from} is not an address of the SES identity ${identity}`);
  return { from, identityArn };
}

function text(scope: Construct, key: string): string | undefined {
  const raw = contextValue(scope, key);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new Error(`context ${key} must be a string, got ${JSON.stringify(raw)}`);
  return raw;
}

function httpsUrl(scope: Construct, key: string): string | undefined {
  const value = text(scope, key);
  if (value !== undefined && !/^https:\/\/[^\s/]+(\/\S*)?$/.test(value)) throw new Error(`context ${key} must be an https URL, got "${value}"`);
  return value?.replace(/\/$/, '');
}

export function readIdentitySettings(scope: Construct): IdentitySettings {
  const googleId = text(scope, 'googleClientId');
  const googleSecret = text(scope, 'googleClientSecretName');
  const githubId = text(scope, 'githubClientId');
  const githubSecret = text(scope, 'githubClientSecretName');
  const githubIssuer = httpsUrl(scope, 'githubOidcIssuer');
  const settings: IdentitySettings = {
    publicUrl: httpsUrl(scope, 'publicUrl'),
    domainPrefix: text(scope, 'cognitoDomainPrefix'),
    google: googleId && googleSecret ? { clientId: googleId, secretName: googleSecret } : undefined,
    github: githubId && githubSecret && githubIssuer ? { clientId: githubId, secretName: githubSecret, issuer: githubIssuer } : undefined,
    callbackOrigins: text(scope, 'authCallbackOrigins'),
    mail: readMail(scope),
  };
  if ((settings.google || settings.github) && (!settings.publicUrl || !settings.domainPrefix)) {
    throw new Error('social sign-in needs context publicUrl and cognitoDomainPrefix as well as the provider client');
  }
  if (githubId && githubSecret && !githubIssuer) throw new Error('context githubOidcIssuer (the OIDC proxy in front of GitHub) is required with githubClientId');
  return settings;
}

export class LedgerIdentity extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain | undefined;
  readonly socialProviders: readonly SocialProvider[];
  private readonly callbackOrigins: string | undefined;

  constructor(scope: Construct, id: string, settings: IdentitySettings) {
    super(scope, id);
    this.callbackOrigins = settings.callbackOrigins;

    this.userPool = new UserPool(this, 'UserPool', {
      // Accounts are made by POST /api/auth/sign-up/email (AdminCreateUser), which also writes
      // the service's user item; a sign-up straight against Cognito would bypass it.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true }, fullname: { required: false, mutable: true } },
      // docs/API.md §8: a password has at least 8 characters, and nothing more is required of it.
      passwordPolicy: {
        minLength: 8,
        requireLowercase: false,
        requireUppercase: false,
        requireDigits: false,
        requireSymbols: false,
        tempPasswordValidity: Duration.days(7),
      },
      mfa: Mfa.OFF,
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      featurePlan: FeaturePlan.ESSENTIALS,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const pool = this.userPool.node.defaultChild as CfnUserPool;
    if (settings.mail) {
      // DEVELOPER: Cognito sends through the account's SES with SES's quotas and the team's
      // own address; the identity must be in the pool's region or one Cognito accepts for it.
      pool.emailConfiguration = { emailSendingAccount: 'DEVELOPER', from: settings.mail.from, sourceArn: settings.mail.identityArn };
    } else {
      Annotations.of(this.userPool).addWarningV2(DEFAULT_SENDER_WARNING_ID, DEFAULT_SENDER_WARNING);
    }

    const providers: IUserPoolIdentityProvider[] = [];
    const social: SocialProvider[] = [];
    if (settings.google) {
      providers.push(
        new UserPoolIdentityProviderGoogle(this, 'Google', {
          userPool: this.userPool,
          clientId: settings.google.clientId,
          clientSecretValue: SecretValue.secretsManager(settings.google.secretName),
          scopes: ['openid', 'email', 'profile'],
          attributeMapping: {
            email: ProviderAttribute.GOOGLE_EMAIL,
            emailVerified: ProviderAttribute.GOOGLE_EMAIL_VERIFIED,
            fullname: ProviderAttribute.GOOGLE_NAME,
            profilePicture: ProviderAttribute.GOOGLE_PICTURE,
          },
        }),
      );
      social.push('google');
    }
    if (settings.github) {
      providers.push(
        new UserPoolIdentityProviderOidc(this, 'GitHub', {
          userPool: this.userPool,
          name: PROVIDER_NAMES.github,
          clientId: settings.github.clientId,
          // A CloudFormation dynamic reference: resolved at deploy time, not stored in the template.
          clientSecret: SecretValue.secretsManager(settings.github.secretName).unsafeUnwrap(),
          issuerUrl: settings.github.issuer,
          scopes: ['openid', 'email', 'profile'],
          attributeRequestMethod: OidcAttributeRequestMethod.GET,
          attributeMapping: {
            email: ProviderAttribute.other('email'),
            emailVerified: ProviderAttribute.other('email_verified'),
            fullname: ProviderAttribute.other('name'),
            profilePicture: ProviderAttribute.other('picture'),
          },
        }),
      );
      social.push('github');
    }
    this.socialProviders = social;

    this.domain =
      social.length > 0
        ? this.userPool.addDomain('HostedUi', { cognitoDomain: { domainPrefix: settings.domainPrefix as string } })
        : undefined;

    this.client = this.userPool.addClient('AppClient', {
      // A public client: the server redeems codes with PKCE (RFC 7636) instead of a secret,
      // and USER_PASSWORD_AUTH needs no SECRET_HASH.
      generateSecret: false,
      authFlows: { userPassword: true },
      preventUserExistenceErrors: true,
      ...(social.length > 0
        ? {
            supportedIdentityProviders: social.map((name) => UserPoolClientIdentityProvider.custom(PROVIDER_NAMES[name])),
            oAuth: {
              flows: { authorizationCodeGrant: true },
              scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
              callbackUrls: social.map((name) => `${settings.publicUrl}/api/auth/callback/${name}`),
            },
          }
        : { supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO], disableOAuth: true }),
    });
    for (const provider of providers) this.client.node.addDependency(provider);

    acknowledgeFindings(this.userPool);
  }

  /** The variables config.ts reads for LEDGER_IDENTITY=cognito. */
  environment(): Record<string, string> {
    const environment: Record<string, string> = {
      LEDGER_IDENTITY: 'cognito',
      LEDGER_USER_POOL_ID: this.userPool.userPoolId,
      LEDGER_USER_POOL_CLIENT_ID: this.client.userPoolClientId,
    };
    if (this.domain) environment.LEDGER_USER_POOL_DOMAIN = `${this.domain.domainName}.auth.${Stack.of(this).region}.amazoncognito.com`;
    if (this.socialProviders.length > 0) environment.LEDGER_SOCIAL_PROVIDERS = this.socialProviders.join(',');
    if (this.callbackOrigins) environment.LEDGER_AUTH_CALLBACK_ORIGINS = this.callbackOrigins;
    return environment;
  }
}

function acknowledgeFindings(pool: UserPool): void {
  const acknowledge = (id: string, reason: string) => Validations.of(pool).acknowledge({ id, reason });
  acknowledge(
    'AwsSolutions-COG1',
    'docs/API.md §8 fixes the password rule at a minimum of 8 characters and nothing else; requiring character ' +
      'classes would reject passwords the API contract accepts. Guessing is slowed by the per-email sign-in ' +
      'throttle of the service (5 failures per 15 minutes) instead.',
  );
  acknowledge(
    'AwsSolutions-COG2',
    'docs/API.md §4.1 signs in with email and password in one request and has no endpoint to answer an MFA ' +
      'challenge, so MFA cannot be required without breaking the contract; social sign-in leaves MFA to Google or GitHub.',
  );
  const plusPlan =
    'Threat protection (advanced security) needs the Plus feature plan, a per-user cost the operator opts into; ' +
    'the service throttles failed sign-ins per email itself and rate-limits every organization.';
  acknowledge('AwsSolutions-COG3', plusPlan);
  acknowledge('AwsSolutions-COG8', plusPlan);
}
