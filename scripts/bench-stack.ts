/**
 * The local stack the benchmarks run against: in memory, loopback only, rate limit lifted (it
 * measures the ledger, not the limiter), and the cheapest password hash config.ts allows, as
 * the tests use (the benchmarks sign up once per organization; on a busy machine OWASP's cost
 * can outlast the sign-up route's timeout).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack, type LocalStack } from '../local/stack.js';
import { apiToken } from '../test/support/http-client.js';

export function startBenchStack(env: Record<string, string> = {}): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    memory: true,
    dataDir: join(tmpdir(), 'ledger-bench-unused'),
    env: { LEDGER_RATE_LIMIT_RPS: '1000000000', LEDGER_SCRYPT_N: '16384', POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR', ...env },
  });
}

/**
 * An API token of a fresh organization (test/support/http-client.ts apiToken), asked up to three
 * times: the first sign-up of a process loads the identity handlers' modules inside the route's
 * timeout, which a machine busy with other work can outlast. Each attempt signs up a new address.
 */
export async function benchApiToken(url: string, name: string): Promise<Awaited<ReturnType<typeof apiToken>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await apiToken(url, name);
    } catch (error) {
      if (attempt >= 3) throw error;
      process.stderr.write(`bench: sign-up attempt ${attempt} failed (${(error as Error).message.slice(0, 80)}); again\n`);
    }
  }
}
