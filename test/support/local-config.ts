/**
 * A minimal local-stack configuration in process.env for unit tests of code that reads
 * config() but touches no table, bucket or key (the values name nothing that exists).
 */
import { resetConfigForTests } from '../../lambdas/config.js';

export function useLocalConfig(extra: Record<string, string> = {}): void {
  Object.assign(process.env, {
    LEDGER_STAGE: 'local',
    LEDGER_TABLE: 't',
    LEDGER_DATA_BUCKET: 'd',
    LEDGER_ANCHORS_BUCKET: 'a',
    LEDGER_SIGNER_KEY_FILE: '/nonexistent',
    LEDGER_SECRETS_KEY_FILE: '/nonexistent',
    LEDGER_QUEUE: 'memory',
    ...extra,
  });
  resetConfigForTests();
}
