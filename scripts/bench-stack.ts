/**
 * The local stack the benchmarks run against: in memory, loopback only, rate limit lifted (it
 * measures the ledger, not the limiter), and the cheapest password hash config.ts allows, as
 * the tests use (the benchmarks sign up once per organization; on a busy machine OWASP's cost
 * can outlast the sign-up route's timeout).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../local/stack.js';

export function startBenchStack(env: Record<string, string> = {}): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    memory: true,
    dataDir: join(tmpdir(), 'ledger-bench-unused'),
    env: { LEDGER_RATE_LIMIT_RPS: '1000000000', LEDGER_SCRYPT_N: '16384', POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR', ...env },
  });
}
