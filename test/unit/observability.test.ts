// Logs and metrics of every request (docs/ARCHITECTURE.md "Logs and metrics"; lambdas/metrics.ts):
// the Lambda context on log lines, the access line (readable in a terminal, JSON
// otherwise), Requests by route and status, Submissions by outcome code, receipt signing
// latency and the sealer's counts.
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Signer } from '../../lambdas/domain/ports.js';
import { defineHandler } from '../../lambdas/http/define-handler.js';
import { logger } from '../../lambdas/logger.js';
import { metrics } from '../../lambdas/metrics.js';
import { route } from '../../lambdas/routes/route-spec.js';
import { timed } from '../../lambdas/runtime/signer.js';
import { LedgerError } from '../../lambdas/shared/errors.js';
import { useLocalConfig } from '../support/local-config.js';

vi.mock('../../lambdas/domain/epochs/run-sealer.js', () => ({
  runSealer: async () => ({
    organizations: 2,
    organizations_skipped: 0,
    epochs_created: 3,
    operations_sealed: 41,
    operations_deferred: 0,
    events_sent: 3,
    anchored: 0,
    anchor_failures: 0,
    errors: [],
  }),
}));

const probeRoute = route({
  id: 'Probe',
  method: 'POST',
  path: '/v1/probe/{outcome}',
  handler: 'test/probe',
  auth: 'public',
  summary: 'test route',
  request: { params: z.object({ outcome: z.enum(['ok', 'replay', 'crash']) }) },
  response: { status: 200, body: z.object({ ok: z.boolean() }) },
  uses: [],
});

const probe = defineHandler(
  probeRoute,
  async ({ params }) => {
    if (params.outcome === 'replay') throw new LedgerError('REPLAY_DETECTED', 'nonce used');
    if (params.outcome === 'crash') throw new Error('boom');
    return { body: { ok: true } };
  },
  { outcomeMetric: 'Submissions' },
);

const context = { functionName: 'ledger-Probe', awsRequestId: 'lambda-req-1', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:ledger-Probe', memoryLimitInMB: '512', functionVersion: '$LATEST' } as Context;

function event(outcome: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /v1/probe/{outcome}',
    rawPath: `/v1/probe/${outcome}`,
    rawQueryString: '',
    headers: {},
    pathParameters: { outcome },
    requestContext: { requestId: `api-${outcome}`, http: { method: 'POST', path: `/v1/probe/${outcome}` } } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
  };
}

/** Every metric recorded while `run` runs, with the dimensions it was recorded under. */
async function recorded(run: () => Promise<unknown>): Promise<{ name: string; value: number; dimensions: Record<string, string> }[]> {
  const found: { name: string; value: number; dimensions: Record<string, string> }[] = [];
  let dimensions: Record<string, string> = {};
  vi.spyOn(metrics, 'addDimensions').mockImplementation((added) => {
    dimensions = { ...dimensions, ...added };
    return metrics;
  });
  vi.spyOn(metrics, 'addMetric').mockImplementation((name, _unit, value) => {
    found.push({ name, value, dimensions });
    return metrics;
  });
  vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => {
    dimensions = {};
    return metrics;
  });
  await run();
  return found;
}

/** The JSON log lines written to stdout while `run` runs. */
async function logLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return lines.flatMap((chunk) => chunk.split('\n')).filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(() => useLocalConfig());
afterEach(() => {
  vi.restoreAllMocks();
  logger.setLogLevel('SILENT');
});

describe('logs', () => {
  it('carry the Lambda context and end each request with one access line (method, path, status, latency)', async () => {
    logger.setLogLevel('INFO');
    const lines = await logLines(() => probe(event('ok'), context));
    const access = lines.find((line) => line.message === 'request');
    expect(access).toMatchObject({
      method: 'POST',
      path: '/v1/probe/ok',
      status: 200,
      route: 'Probe',
      request_id: 'api-ok',
      function_name: 'ledger-Probe',
      function_request_id: 'lambda-req-1',
    });
    expect(typeof access?.cold_start).toBe('boolean');
    expect(typeof access?.latency_ms).toBe('number');
  });

  it('print a readable line instead of JSON when the local stack writes to a terminal', async () => {
    logger.setLogLevel('INFO');
    const tty = process.stdout.isTTY;
    process.stdout.isTTY = true;
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      await probe(event('replay'), context);
    } finally {
      write.mockRestore();
      process.stdout.isTTY = tty;
    }
    expect(written.join('')).toMatch(/^POST \/v1\/probe\/replay 400 \d+ ms$/m);
    expect(written.join('')).not.toContain('"message":"request"');
  });
});

describe('metrics', () => {
  it('count requests by route and status, and submissions by outcome code', async () => {
    const found = await recorded(async () => {
      await probe(event('ok'), context);
      await probe(event('replay'), context);
      await probe(event('crash'), context);
    });
    const requests = found.filter((metric) => metric.name === 'Requests').map((metric) => metric.dimensions);
    expect(requests).toEqual([
      { route: 'Probe', status: '200' },
      { route: 'Probe', status: '400' },
      { route: 'Probe', status: '500' },
    ]);
    expect(found.filter((metric) => metric.name === 'RequestLatency')).toHaveLength(3);
    const outcomes = found.filter((metric) => metric.name === 'Submissions').map((metric) => metric.dimensions.outcome);
    expect(outcomes).toEqual(['ACCEPTED', 'REPLAY_DETECTED', 'INTERNAL_ERROR']);
  });

  it('time each receipt signature', async () => {
    const inner: Signer = {
      kid: async () => 'kid',
      jwks: async () => [],
      ping: async () => {},
      sign: async () => new Uint8Array(64),
    };
    const found = await recorded(() => timed(inner).sign(new Uint8Array([1])));
    expect(found).toEqual([{ name: 'ReceiptSigningLatency', value: expect.any(Number), dimensions: {} }]);
  });

  it("count the sealer's epochs and operations", async () => {
    const { handler } = await import('../../lambdas/workers/seal-epochs.js');
    const worker = { ...context, functionName: 'ledger-SealEpochs', getRemainingTimeInMillis: () => 300_000 } as Context;
    const found = await recorded(() => handler({} as never, worker));
    expect(found.map(({ name, value }) => [name, value])).toEqual([
      ['EpochsSealed', 3],
      ['OperationsSealed', 41],
    ]);
  });
});
