/**
 * The environment the handlers read through lambdas/config.ts, filled in for the local
 * stack. It must be in process.env before any handler module is imported (config() reads it
 * once, SDK clients are built at module scope); handler-modules.ts imports lazily, after
 * this is applied.
 */
import type { LocalKeys } from './keys.js';

interface LocalResources {
  tableName: string;
  dataBucket: string;
  anchorsBucket: string;
  dynamoEndpoint: string;
  s3Endpoint: string;
  keys: LocalKeys;
}

/** Variables the local stack sets; defaults such as LEDGER_EPOCH_MS are left to config.ts. */
export function localEnv(resources: LocalResources, current: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    LEDGER_STAGE: 'local',
    // Metrics are recorded but not printed: EMF lines are for CloudWatch, not a terminal (lambdas/metrics.ts).
    POWERTOOLS_METRICS_DISABLED: 'true',
    LEDGER_TABLE: resources.tableName,
    LEDGER_DATA_BUCKET: resources.dataBucket,
    LEDGER_ANCHORS_BUCKET: resources.anchorsBucket,
    LEDGER_DYNAMODB_ENDPOINT: resources.dynamoEndpoint,
    LEDGER_S3_ENDPOINT: resources.s3Endpoint,
    LEDGER_SIGNER_KEY_FILE: resources.keys.signerKeyFile,
    LEDGER_SECRETS_KEY_FILE: resources.keys.secretsKeyFile,
    LEDGER_QUEUE: 'memory',
    // The local engines ignore region and credentials (-sharedDb; s3rver accepts any key),
    // but the SDK wants both. Real credentials in the environment are kept and never sent
    // anywhere but to the local endpoints.
    AWS_REGION: 'us-east-1',
    ...(current.AWS_ACCESS_KEY_ID ? {} : { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' }),
  };
}

/** Sets `vars` in process.env; returns a function restoring what was there before. */
export function applyEnv(vars: Record<string, string>): () => void {
  const previous = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(vars)) {
    previous.set(name, process.env[name]);
    process.env[name] = value;
  }
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
