/**
 * `npm run bench` (audit query, docs/API.md §4.6): against its own in-memory local stack on
 * 127.0.0.1,
 *
 * 1. seeds BENCH_AUDIT_OPS (100,000) operations over 20 agents straight into the table
 *    (test/support/operation-seed.ts), spread over the 24 hours before the last minute: an
 *    organization as a day of work leaves it;
 * 2. times the first 500-row page before any sealing (every match counted from the index);
 * 3. seals them as the scheduled sealer would (the last window and the grace period stay
 *    open, as in a live deployment);
 * 4. times, in the same rounds, the baseline, a single raw Query of 500 entries of one shard
 *    of the time index gsi2, against one 500-row audit page over HTTP (the first, with its
 *    total_count, and the next), and the page's parts in process: the rows alone and the
 *    count alone; and a raw Query of 500 entries of the index the page reads its rows from
 *    (ops_by_time, whose entries are whole rows), for comparison. The pages go over node:http,
 *    as the raw Query does inside the AWS SDK (bench-http.ts); the first page is also timed
 *    over fetch, the tests' client, whose handling of a 400 KB answer in this same process
 *    is part of what that figure measures.
 *
 * Target (issue text): the first page's p50 at most 3x the raw Query's. Bounded and self-stopping.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { STORED_ROW_FIELDS } from '@agent-ledger/protocol';
import type { AuditQueryResult } from '../lambdas/domain/audit/query-operations.js';
import { runBench } from './bench-run.js';
import { benchHttp } from './bench-http.js';
import { startBenchStack } from './bench-stack.js';
import { apiClient, apiToken } from '../test/support/http-client.js';

const OPS = Number(process.env.BENCH_AUDIT_OPS ?? 100_000);
const QUERY_RUNS = 15;
const PAGE = 500;
const HARD_TIMEOUT_MS = 20 * 60_000;
const log = (line: string) => process.stderr.write(`bench-audit: ${line}\n`);
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const timed = async <T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
};

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const { token, orgId } = await apiToken(stack.url, 'BenchAudit');
    const api = apiClient(stack.url, token);
    // Imported once the stack has set the environment (config(), SDK clients).
    const { seedBenchDay, DAY_MS } = await import('./bench-day.js');
    const { dynamo } = await import('../lambdas/store/clients.js');
    const { config } = await import('../lambdas/config.js');
    const { ledgerKeys } = await import('../lambdas/store/ledger-items.js');
    const { operationPage } = await import('../lambdas/store/operation-index.js');
    const { countMatches } = await import('../lambdas/domain/audit/count-matches.js');
    const { OPS_ROWS_INDEX } = await import('../lambdas/store/table-design.js');
    // After the stack has set POWERTOOLS_METRICS_DISABLED: loaded before, the metrics module printed a line per seeded receipt.
    const { signer } = await import('../lambdas/runtime/signer.js');

    const { agents, t0 } = await seedBenchDay(api, orgId, OPS, { objects: false, log });

    const lean = benchHttp(stack.url, token);
    const page = async (cursor?: string, via: 'node:http' | 'fetch' = 'node:http') => {
      const body = { limit: PAGE, ...(cursor ? { cursor } : {}) };
      const { ms, value: res } = await timed(() => (via === 'fetch' ? api('POST', '/v1/audit/query', body) : lean.post('/v1/audit/query', body)));
      const answer = res.body as AuditQueryResult;
      if (res.status !== 200 || answer.operations.length !== PAGE) throw new Error(`audit query: ${res.status} ${JSON.stringify(answer).slice(0, 300)} after ${ms.toFixed(0)} ms`);
      return { ms, cursor: answer.cursor!, total: answer.total_count };
    };
    // The first page before any sealing: what every count cost before epochs kept counts.
    const unsealed: number[] = [];
    for (let r = 0; r < 3; r++) unsealed.push((await page()).ms);

    // Sealed as the scheduled sealer finds it a minute after the last operation: the last window and the grace period stay open.
    const { sealOrganization } = await import('../lambdas/domain/epochs/seal-organization.js');
    const { epochMs, epochGraceMs } = config();
    const seal = await sealOrganization(orgId, { now: t0 + DAY_MS + 60_000, epochMs, graceMs: epochGraceMs, settleMs: 0, anchorWanted: false, signer: signer() });
    log(`sealed ${seal.epochs.length} epochs`);

    const rawQuery = (IndexName: string) => () =>
      dynamo().send(
        new QueryCommand({
          TableName: config().tableName,
          IndexName,
          KeyConditionExpression: 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': ledgerKeys.orgTimeIndex(orgId, agents[0]!.agentId, 0, '').gsi2pk },
          Limit: PAGE,
        }),
      );
    const now = Date.now();
    const runs = { raw: [] as number[], rawRows: [] as number[], first: [] as number[], firstFetch: [] as number[], next: [] as number[], rows: [] as number[], count: [] as number[] };
    let total = 0;
    for (let r = 0; r < QUERY_RUNS; r++) {
      runs.raw.push((await timed(rawQuery('gsi2'))).ms);
      runs.rawRows.push((await timed(rawQuery(OPS_ROWS_INDEX.name))).ms);
      const one = await page();
      runs.first.push(one.ms);
      total = one.total;
      runs.next.push((await page(one.cursor)).ms);
      runs.firstFetch.push((await page(undefined, 'fetch')).ms);
      runs.rows.push((await timed(() => operationPage(orgId, { endTime: now }, { limit: PAGE, attributes: STORED_ROW_FIELDS }))).ms);
      runs.count.push((await timed(() => countMatches(orgId, { endTime: now }))).ms);
    }
    if (total !== OPS) throw new Error(`total_count ${total}, expected ${OPS}`);
    const raw = p50(runs.raw);
    const ratio = (xs: number[]) => `${p50(xs).toFixed(0)} ms = ${(p50(xs) / raw).toFixed(2)}x`;
    process.stdout.write(
      `audit query, ${PAGE} rows of ${OPS}: raw Query p50 ${raw.toFixed(0)} ms; first page (with total_count) p50 ${ratio(runs.first)} ` +
        `(before sealing, every match counted from the index: ${ratio(unsealed)}; over fetch: ${ratio(runs.firstFetch)}); next page p50 ${ratio(runs.next)}; ` +
        `in process: rows ${ratio(runs.rows)}, total_count ${ratio(runs.count)}; raw Query of ${OPS_ROWS_INDEX.name} (whole rows) p50 ${ratio(runs.rawRows)}\n`,
    );
    lean.close();
  } finally {
    await stack.stop();
  }
}

runBench(main, HARD_TIMEOUT_MS, log);
