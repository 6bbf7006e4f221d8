/**
 * The epoch sealer and the epoch routes as the real route and worker tables deploy them
 * (docs/PROTOCOL.md, Merkle epochs): the 5-minute schedule runs the sealer, the sealer's role can do exactly what
 * sealing needs, the grace period outlasts the submit function (docs/PROTOCOL.md: "a grace period
 * longer than the submit function's timeout"), and verify may read the leaf lists it proves
 * from. The anchors bucket's Object Lock is covered by stack.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import type { LedgerFunction } from '../../lib/function.js';
import { actionsOf, arnOf, resourceOf, rootStatementsOf, defaultSynth, StubLambdas, synthesize, templateOf, type Synthesized } from './support.js';

const TSA_URL = 'https://tsa.example.com/tsr';

let stubs: StubLambdas;
let synth: Synthesized;
let withTsa: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas(routeList, workerList);
  synth = defaultSynth();
  // Only what the settings test reads: the submit route and the sealer.
  withTsa = synthesize({ lambdasDir: stubs.dir, routes: [routes.submitOperation] }, { tsaUrl: TSA_URL, epochGraceMs: '90000' });
});
afterAll(() => stubs?.remove());

const sealer = (s: Synthesized) => s.stack.workers.node.findChild('SealEpochs') as LedgerFunction;
const routeFunction = (s: Synthesized, spec: RouteSpec) => s.stack.api.routes.find((r) => r.spec.id === spec.id)!.function;

/** Actions a function's role allows on a resource (its ARN, or paths below it), in root-template terms. */
function actionsOn(fn: LedgerFunction, construct: IConstruct): string[] {
  const arn = JSON.stringify(arnOf(construct));
  return rootStatementsOf(fn)
    .filter((statement) => JSON.stringify(statement.Resource).includes(arn))
    .flatMap(actionsOf);
}

describe('the sealer', () => {
  it('is a worker run by the 5-minute schedule, with a timeout of one period', () => {
    templateOf(synth.stack.workers).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: arnOf(sealer(synth).function) })]),
    });
    expect(resourceOf(sealer(synth).function).Properties.Timeout).toBe(300);
  });

  it('may read and write the table, put leaf lists in the anchors bucket and sign checkpoints, nothing else (epoch.created leaves through the outbox)', () => {
    const { data, queues, keys } = synth.stack;
    const fn = sealer(synth);
    expect(actionsOn(fn, data.table)).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem']));
    expect(actionsOn(fn, data.anchorsBucket)).toEqual(expect.arrayContaining(['s3:PutObject', 's3:GetObject']));
    expect(actionsOn(fn, queues.queues.events)).toEqual([]);
    const all = rootStatementsOf(fn).flatMap(actionsOf);
    // The one KMS use: signing each epoch's checkpoint of the organization's log (docs/CHECKPOINTS.md).
    expect(all.filter((action) => action.startsWith('kms:')).sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    expect(all.some((action) => action.includes('Delete') && action.startsWith('s3:'))).toBe(false);
    expect(actionsOn(fn, data.dataBucket)).toEqual([]);
    expect(actionsOn(fn, keys.signer).sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  });

  it('gets the TSA URL from context, and a grace period longer than the submit function may run', () => {
    const variables = (s: Synthesized) => resourceOf(sealer(s).function).Properties.Environment.Variables as Record<string, string>;
    expect(variables(synth).LEDGER_TSA_URL).toBeUndefined();
    expect(variables(withTsa)).toMatchObject({ LEDGER_TSA_URL: TSA_URL, LEDGER_EPOCH_MS: '300000', LEDGER_EPOCH_GRACE_MS: '90000' });
    for (const s of [synth, withTsa]) {
      const submitTimeoutMs = resourceOf(routeFunction(s, routes.submitOperation).function).Properties.Timeout * 1000;
      expect(Number(variables(s).LEDGER_EPOCH_GRACE_MS)).toBeGreaterThan(submitTimeoutMs);
    }
  });
});

describe('epoch routes', () => {
  it('list and get read the table only (and count their request, lambdas/store/rate-counters.ts, and record the token use, lambdas/store/token-records.ts)', () => {
    for (const spec of [routes.listEpochs, routes.getEpoch]) {
      const statements = rootStatementsOf(routeFunction(synth, spec));
      const all = statements.flatMap(actionsOf);
      expect(all).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      // The only writes: the organization's request counter and the token's last use, each under
      // its partition condition only.
      const writes = statements.filter((statement) => actionsOf(statement).some((action) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(action)));
      expect(writes.map((statement) => [actionsOf(statement), statement.Condition])).toEqual([
        [['dynamodb:UpdateItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['*#RATE'] } }],
        [['dynamodb:UpdateItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TOKENUSE#*'] } }],
      ]);
      expect(all.filter((action) => /^(s3:|sqs:|kms:)/.test(action))).toEqual([]);
    }
  });

  it('verify may read the leaf lists it builds proofs from', () => {
    const fn = routeFunction(synth, routes.verifyOperation);
    expect(actionsOn(fn, synth.stack.data.anchorsBucket)).toEqual(expect.arrayContaining(['s3:GetObject']));
  });
});
