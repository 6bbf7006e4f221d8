/**
 * Items owned by the local identity provider, the stand-in for Cognito on one machine
 * (DESIGN.md, Local stack): its user directory (email → scrypt hash) and the one-time codes
 * of the development OAuth provider page. They live in the service's table, under keys no
 * other item uses; in AWS none of them exist.
 *
 * | item                | pk                               | sk          |
 * |---------------------|----------------------------------|-------------|
 * | credential          | LOCALIDP#<lower-cased email>     | CREDENTIAL  |
 * | dev OAuth code      | LOCALIDP#CODE#<sha256 of code>   | CODE        |  TTL 5 minutes
 * | verification token  | LOCALIDP#VERIFY#<sha256 of token>| VERIFY      |  TTL 24 hours, single use
 */
import type { SocialProvider } from '../domain/ports.js';

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
