/**
 * Stands in for `@aws-sdk/credential-provider-node` inside the Lambda bundles only (lib/bundling.ts
 * aliases the package to this file; tests and `npm start` use the real one). In Lambda the
 * execution role's credentials are always in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), which is the first link of the SDK's default
 * chain; the other links (profiles, SSO, web identity, IMDS, process) and the STS and SSO
 * clients they carry are dead code there, about 90 KB of every bundle and its cold start.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The SDK clients call `defaultProvider(init)` for their credentials; in Lambda that is the environment. */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
