/**
 * The organization the audit and export benches run against: a day of operations over 20
 * agents, ending a minute ago, evenly spaced, written straight into the table (and the data
 * bucket unless `objects: false`) by test/support/operation-seed.ts. Import it once the bench
 * stack has set the environment (config(), SDK clients).
 */
import { randomBytes } from 'node:crypto';
import { newKey, registerAgent } from '../test/support/ledger-fixtures.js';
import type { Api } from '../test/support/http-client.js';
import { seedOperations, type SeedAgent } from '../test/support/operation-seed.js';

const AGENTS = 20;
const SEED_CHUNK = 5_000;
export const DAY_MS = 86_400_000;

export interface BenchDay {
  agents: SeedAgent[];
  /** created_at of the first operation. */
  t0: number;
  /** Milliseconds between two operations. */
  spacing: number;
}

export async function seedBenchDay(api: Api, orgId: string, operations: number, options: { objects?: boolean; log: (line: string) => void }): Promise<BenchDay> {
  const agents = Array.from({ length: AGENTS }, (_, i) => ({ agentId: `bench-${i}-${randomBytes(2).toString('hex')}`, key: newKey() }));
  for (const agent of agents) await registerAgent(api, agent.agentId, [agent.key]);
  const t0 = Date.now() - DAY_MS - 60_000;
  const spacing = DAY_MS / operations;
  const seeded = performance.now();
  for (let i = 0; i < operations; i += SEED_CHUNK) {
    const n = Math.min(SEED_CHUNK, operations - i);
    await seedOperations(
      orgId,
      Array.from({ length: n }, (_, k) => ({
        agent: agents[(i + k) % AGENTS]!,
        createdAt: t0 + Math.floor((i + k) * spacing),
        subject: { path: `src/module-${(i + k) % 997}.ts` },
        payload: { diff: randomBytes(96).toString('base64') },
      })),
      { objects: options.objects ?? true },
    );
  }
  options.log(`seeded ${operations} operations in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  return { agents, t0, spacing };
}
