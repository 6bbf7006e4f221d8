/**
 * The epoch sealer and the epoch routes as the real route and worker tables deploy them
 * (PROTOCOL.md, Merkle epochs): the 5-minute schedule runs the sealer, the sealer's role can do exactly what
 * sealing needs, the grace period outlasts the submit function (PROTOCOL.md: "a grace period
 * longer than the submit function's timeout"), and verify may read the leaf lists it proves
 * from. The anchors bucket's Object Lock is covered by stack.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList, routes } from '../../lambdas/routes/routes.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { actionsOf, logicalId, statementsOfFunction, StubLambdas, synthesize, type Synthesized } from './support.js';

const TSA_URL = 'https://tsa.example.com/tsr';

let stubs: StubLambdas;
let synth: Synthesized;
let withTsa: Synthesized;

beforeAll(() => {
  stubs = new StubLambdas(routeList, workerList);
  synth = synthesize({ lambdasDir: stubs.dir });
  withTsa = synthesize({ lambdasDir: stubs.dir }, { tsaUrl: TSA_URL, epochGraceMs: '90000' });
});
afterAll(() => stubs?.remove());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const resourceOf = (s: Synthesized, id: string) => (s.template.toJSON().Resources as Record<string, any>)[id];
const sealerId = (s: Synthesized) => logicalId(s.stack.workers.node.findChild('SealEpochs').node.findChild('Function'));
const routeId = (s: Synthesized, spec: RouteSpec) => logicalId(s.stack.api.routes.find((r) => r.spec.id === spec.id)!.function.function);
const arnOf = (construct: IConstruct) => ({ 'Fn::GetAtt': [logicalId(construct), 'Arn'] });

/** Actions a function's role allows on a resource (matched by the resource's logical id). */
function actionsOn(s: Synthesized, fnId: string, construct: IConstruct): string[] {
  const id = logicalId(construct);
  return statementsOfFunction(s.template, fnId)
    .filter((statement) => JSON.stringify(statement.Resource).includes(`"${id}"`))
    .flatMap(actionsOf);
}

describe('the sealer', () => {
  it('is a worker run by the 5-minute schedule, with a timeout of one period', () => {
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [sealerId(synth), 'Arn'] } })]),
    });
    expect(resourceOf(synth, sealerId(synth)).Properties.Timeout).toBe(300);
  });

  it('may read and write the table and put leaf lists in the anchors bucket, nothing else (epoch.created leaves through the outbox)', () => {
    const { data, queues, keys } = synth.stack;
    const fnId = sealerId(synth);
    expect(actionsOn(synth, fnId, data.table)).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:BatchGetItem']));
    expect(actionsOn(synth, fnId, data.anchorsBucket)).toEqual(expect.arrayContaining(['s3:PutObject', 's3:GetObject*']));
    expect(actionsOn(synth, fnId, queues.queues.events)).toEqual([]);
    const all = statementsOfFunction(synth.template, fnId).flatMap(actionsOf);
    expect(all.some((action) => action.startsWith('kms:'))).toBe(false);
    expect(all.some((action) => action.includes('Delete') && action.startsWith('s3:'))).toBe(false);
    expect(actionsOn(synth, fnId, data.dataBucket)).toEqual([]);
    expect(actionsOn(synth, fnId, keys.signer)).toEqual([]);
  });

  it('gets the TSA URL from context, and a grace period longer than the submit function may run', () => {
    const variables = (s: Synthesized) => resourceOf(s, sealerId(s)).Properties.Environment.Variables as Record<string, string>;
    expect(variables(synth).LEDGER_TSA_URL).toBeUndefined();
    expect(variables(withTsa)).toMatchObject({ LEDGER_TSA_URL: TSA_URL, LEDGER_EPOCH_MS: '300000', LEDGER_EPOCH_GRACE_MS: '90000' });
    for (const s of [synth, withTsa]) {
      const submitTimeoutMs = resourceOf(s, routeId(s, routes.submitOperation)).Properties.Timeout * 1000;
      expect(Number(variables(s).LEDGER_EPOCH_GRACE_MS)).toBeGreaterThan(submitTimeoutMs);
    }
  });
});

describe('epoch routes', () => {
  it('list and get read the table only', () => {
    for (const spec of [routes.listEpochs, routes.getEpoch]) {
      const all = statementsOfFunction(synth.template, routeId(synth, spec)).flatMap(actionsOf);
      expect(all).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      expect(all.filter((action) => /^(dynamodb:(Put|Update|Delete|BatchWrite)|s3:|sqs:|kms:)/.test(action))).toEqual([]);
    }
  });

  it('verify may read the leaf lists it builds proofs from', () => {
    const fnId = routeId(synth, routes.verifyOperation);
    expect(actionsOn(synth, fnId, synth.stack.data.anchorsBucket)).toEqual(expect.arrayContaining(['s3:GetObject*']));
    expect(JSON.stringify(statementsOfFunction(synth.template, fnId))).toContain(JSON.stringify(arnOf(synth.stack.data.anchorsBucket)));
  });
});
