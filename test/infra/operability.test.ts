/**
 * What makes the stack operable (docs/RUNBOOK.md), checked on the stack built from the real
 * route and worker tables and on variants:
 *
 * - alarms and the dashboard (lib/alarms.ts, lib/dashboard.ts): one encrypted topic every
 *   alarm notifies (mailed to context alarmEmail), the alarms the runbook describes, each
 *   with its runbook entry, and a dashboard of the hot path, sealing, queues and every alarm;
 * - the workers (lib/workers.ts): the sealer's reserved concurrency, memory and on-failure
 *   destination, the EventBridge target's retries and dead-letter queue, partial batch
 *   responses for every queue and stream consumer, an alarm on every dead-letter queue;
 * - room to grow: CloudFormation takes at most 500 resources (and 200 parameters and
 *   outputs) per template; every template stays under TEMPLATE_RESOURCE_LIMIT, for the real
 *   tables and for a route table three times their size, because each area of routes is its
 *   own nested stack, cut in two when it outgrows one (lib/route-areas.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestedStack, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DELAY_SECONDS } from '../../lambdas/domain/ports.js';
import { MetricNames } from '../../lambdas/metric-names.js';
import type { RouteSpec } from '../../lambdas/routes/route-spec.js';
import { routeList } from '../../lambdas/routes/routes.js';
import type { WorkerSpec } from '../../lambdas/workers/worker-spec.js';
import { workerList } from '../../lambdas/workers/worker-table.js';
import { runbookEntry } from '../../lib/alarms.js';
import type { LedgerFunction } from '../../lib/function.js';
import { PROJECT_ROOT } from '../../lib/paths.js';
import { MAX_RECEIVE_COUNT } from '../../lib/queues.js';
import { MAX_ROUTES_PER_STACK, TEMPLATE_RESOURCE_LIMIT, areaOf, routeAreas } from '../../lib/route-areas.js';
import {
  arnOf,
  defaultSynth,
  EVERY_KIND_WORKERS,
  EVERY_RESOURCE,
  everyTemplate,
  inRootTerms,
  logicalId,
  refOf,
  resourceOf,
  StubLambdas,
  synthesize,
  templateOf,
  type Synthesized,
} from './support.js';

// Template JSON is walked ad hoc in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type CfnResource = { Type: string; Properties: Record<string, any> };

let stubs: StubLambdas;
/** The stack `cdk synth` builds from the real tables. */
let synth: Synthesized;
/** No routes, a worker of each kind, an alarm address. */
let variant: Synthesized;
/** Three times the routes, new areas among them, and a worker of each kind. */
let grown: Synthesized;

/** Counts of a template's sections. */
function sizes(s: Synthesized): { stack: string; resources: number; parameters: number; outputs: number }[] {
  return everyTemplate(s.app).map(({ stack, template }) => {
    const json = template.toJSON() as { Resources?: object; Parameters?: object; Outputs?: object };
    return {
      stack: stack.node.path,
      resources: Object.keys(json.Resources ?? {}).length,
      parameters: Object.keys(json.Parameters ?? {}).length,
      outputs: Object.keys(json.Outputs ?? {}).length,
    };
  });
}

function expectWithinLimits(s: Synthesized): void {
  for (const size of sizes(s)) {
    expect(size.resources, size.stack).toBeLessThanOrEqual(TEMPLATE_RESOURCE_LIMIT);
    expect(size.parameters, size.stack).toBeLessThanOrEqual(200);
    expect(size.outputs, size.stack).toBeLessThanOrEqual(200);
  }
}

/** `count` more routes in the area of `area`, each as big as a real route can be (it uses everything). */
function moreRoutes(area: string, count: number): RouteSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `Grown${area}${index}`,
    method: 'POST' as const,
    path: `/v1/grown/${area}/${index}`,
    handler: `${area}/grown-${index}`,
    auth: ['org_owner' as const],
    summary: 'a route of a grown table',
    response: { status: 200, body: null },
    uses: EVERY_RESOURCE,
  }));
}

/** Three times today's routes: existing areas grown past one stack, and an area that does not exist yet. */
const GROWN_ROUTES = [
  ...routeList,
  ...moreRoutes('exports', 30),
  ...moreRoutes('webhooks', 30),
  ...moreRoutes('agents', 40),
  ...moreRoutes('audit', 10),
  ...moreRoutes('console', 20),
];

beforeAll(() => {
  stubs = new StubLambdas(GROWN_ROUTES, [...workerList, ...EVERY_KIND_WORKERS]);
  synth = defaultSynth();
  variant = synthesize({ lambdasDir: stubs.dir, routes: [], workers: EVERY_KIND_WORKERS }, { alarmEmail: 'oncall@example.com' });
  grown = synthesize({ lambdasDir: stubs.dir, routes: GROWN_ROUTES, workers: [...workerList, ...EVERY_KIND_WORKERS] });
});
afterAll(() => stubs?.remove());

/** Every alarm of the app, root and nested, with the logical id of the topic it notifies resolved to the root. */
function alarms(s: Synthesized): CfnResource[] {
  return everyTemplate(s.app).flatMap(({ template }) => Object.values(template.findResources('AWS::CloudWatch::Alarm')) as CfnResource[]);
}
const alarmNamed = (s: Synthesized, name: string) => alarms(s).find((alarm) => alarm.Properties.AlarmName === `AgentLedger-${name}`)?.Properties;

const workerFunction = (s: Synthesized, id: string) => s.stack.workers.node.findChild(id) as LedgerFunction;
const workersTemplate = (s: Synthesized) => templateOf(s.stack.workers);
const alarmNames = (s: Synthesized) => alarms(s).map((alarm) => alarm.Properties.AlarmName as string);

describe('the alarm topic', () => {
  it('is encrypted with a key CloudWatch may use, TLS-only, and publishable by this account’s alarms', () => {
    const { topic } = synth.stack.alarms;
    const properties = resourceOf(topic).Properties;
    expect(properties.KmsMasterKeyId).toBeDefined();
    synth.template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] }),
        ]),
      },
    });
    synth.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' } }),
        ]),
      },
    });
  });

  it('mails context alarmEmail, and nobody without it', () => {
    variant.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    synth.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('is notified by every alarm, on ALARM and on OK', () => {
    const topic = [refOf(synth.stack.alarms.topic)];
    for (const { stack, template } of everyTemplate(synth.app)) {
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm')) as CfnResource[]) {
        // In a nested stack the topic is a parameter; the root passes the topic's ARN for it.
        expect(inRootTerms(stack, alarm.Properties.AlarmActions), alarm.Properties.AlarmName).toEqual(topic);
        expect(inRootTerms(stack, alarm.Properties.OKActions), alarm.Properties.AlarmName).toEqual(topic);
      }
    }
  });
});

describe('alarms', () => {
  it('watch every function for errors and throttles', () => {
    const names = alarms(synth).map((alarm) => alarm.Properties.AlarmName);
    for (const { function: fn } of synth.stack.functions) {
      expect(names).toEqual(expect.arrayContaining([`AgentLedger-${fn.node.id}-Errors`, `AgentLedger-${fn.node.id}-Throttles`]));
    }
    expect(alarmNamed(synth, 'SubmitOperation-Errors')).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Threshold: 1, Period: 300 });
  });

  it('watch the API’s 5xx rate, once enough requests arrived', () => {
    const alarm = alarmNamed(synth, 'Api-5xxRate')!;
    expect(alarm.Threshold).toBe(5);
    const expression = (alarm.Metrics as { Expression?: string }[]).find((metric) => metric.Expression)!.Expression;
    expect(expression).toBe('IF(requests >= 20, 100 * errors / requests, 0)');
    expect(JSON.stringify(alarm.Metrics)).toContain('"5xx"');
    expect(JSON.stringify(alarm.Metrics)).toContain(JSON.stringify(refOf(synth.stack.api.httpApi)));
  });

  it('watch the p99 latency of accepted submissions over 15 minutes', () => {
    expect(alarmNamed(synth, 'Submit-LatencyP99')).toMatchObject({
      Namespace: 'AgentLedger',
      MetricName: MetricNames.RequestLatency,
      Dimensions: expect.arrayContaining([
        { Name: 'route', Value: 'SubmitOperation' },
        { Name: 'status', Value: '200' },
        { Name: 'service', Value: 'agent-ledger' },
      ]),
      ExtendedStatistic: 'p99',
      EvaluationPeriods: 3,
      Threshold: 1000,
    });
  });

  it('watch the table for throttled requests and system errors on every operation the store uses', () => {
    for (const name of ['Table-Throttles', 'Table-SystemErrors']) {
      const metrics = JSON.stringify(alarmNamed(synth, name)!.Metrics);
      for (const operation of ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems']) {
        expect(metrics, `${name} ${operation}`).toContain(`"Value":"${operation}"`);
      }
      expect(metrics).toContain(JSON.stringify(refOf(synth.stack.data.table)));
    }
  });

  it('watch the application metrics of KMS throttling, failed webhook attempts and given-up deliveries', () => {
    expect(alarmNamed(synth, 'Kms-Throttles')).toMatchObject({ Namespace: 'AgentLedger', MetricName: MetricNames.KmsThrottles, Statistic: 'Sum', Threshold: 1 });
    expect(alarmNamed(synth, 'Webhooks-AttemptFailures')).toMatchObject({
      Namespace: 'AgentLedger',
      MetricName: MetricNames.WebhookAttempts,
      Dimensions: expect.arrayContaining([{ Name: 'outcome', Value: 'failed' }, { Name: 'service', Value: 'agent-ledger' }]),
      Statistic: 'Sum',
      Period: 900,
      Threshold: 50,
    });
    expect(alarmNamed(synth, 'Webhooks-DeliveriesFailed')).toMatchObject({
      Namespace: 'AgentLedger',
      MetricName: MetricNames.WebhookDeliveriesFailed,
      Dimensions: [{ Name: 'service', Value: 'agent-ledger' }],
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 10,
    });
  });

  it('each point at an entry that docs/RUNBOOK.md has', () => {
    const runbook = readFileSync(join(PROJECT_ROOT, 'docs/RUNBOOK.md'), 'utf8');
    for (const alarm of alarms(synth)) {
      const name = (alarm.Properties.AlarmName as string).replace(/^AgentLedger-/, '');
      const entry = runbookEntry(name);
      expect(alarm.Properties.AlarmDescription, name).toContain(entry);
      expect(runbook, `docs/RUNBOOK.md entry ${entry}`).toContain(`### ${entry.replaceAll('"', '`')}`);
    }
  });
});

describe('dashboard', () => {
  const body = () => {
    const dashboard = resourceOf(synth.stack.dashboard.dashboard).Properties.DashboardBody;
    return JSON.stringify(dashboard);
  };

  it('shows the submit rate and latency, epochs sealed, queue ages, dead letters and the outbox lag', () => {
    const text = body();
    for (const metric of ['Submissions', 'RequestLatency', 'EpochsSealed', 'OperationsSealed', 'ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesVisible', 'IteratorAge']) {
      expect(text, metric).toContain(metric);
    }
    for (const queue of [...Object.values(synth.stack.queues.queues), ...Object.values(synth.stack.queues.deadLetterQueues)]) {
      expect(text).toContain(JSON.stringify({ 'Fn::GetAtt': [logicalId(queue), 'QueueName'] }));
    }
  });

  it('lists every alarm of every stack', () => {
    const text = body();
    for (const alarm of alarms(synth)) expect(text, alarm.Properties.AlarmName).toContain(`:alarm:AgentLedger-`);
    const listed = (text.match(/:alarm:AgentLedger-[A-Za-z0-9-]+/g) ?? []).map((arn) => arn.slice(':alarm:'.length));
    expect(new Set(listed)).toEqual(new Set(alarms(synth).map((alarm) => alarm.Properties.AlarmName)));
  });
});

describe('the sealer', () => {
  const sealer = workerList.find((worker) => worker.id === 'SealEpochs')!;

  it('has reserved concurrency and the memory the 100,000-leaf benchmark calls for', () => {
    expect(sealer).toMatchObject({ memorySize: 1024, reservedConcurrency: 2 });
    expect(resourceOf(workerFunction(synth, 'SealEpochs').function).Properties).toMatchObject({
      MemorySize: 1024,
      ReservedConcurrentExecutions: 2,
      Timeout: 300,
    });
  });

  it('sends a run that failed its retries to its dead-letter queue (on-failure destination), within one epoch period', () => {
    const fn = workerFunction(synth, 'SealEpochs');
    const deadLetters = synth.stack.workers.deadLetterQueues.SealEpochs!;
    workersTemplate(synth).hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: Stack.of(fn).getLogicalId(fn.function.node.defaultChild as never) },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 300,
      DestinationConfig: { OnFailure: { Destination: arnOf(deadLetters) } },
    });
  });

  it('is the 5-minute rule’s target with a retry policy and a dead-letter queue', () => {
    const deadLetters = synth.stack.workers.deadLetterQueues.SealEpochs!;
    workersTemplate(synth).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [
        Match.objectLike({
          Arn: arnOf(workerFunction(synth, 'SealEpochs').function),
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
          DeadLetterConfig: { Arn: arnOf(deadLetters) },
        }),
      ],
    });
    // EventBridge may send to the dead-letter queue for this rule only.
    workersTemplate(synth).hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'sqs:SendMessage', Principal: { Service: 'events.amazonaws.com' }, Condition: Match.objectLike({ ArnEquals: Match.anyValue() }) }),
        ]),
      },
    });
  });

  it('is alarmed on errors, on a missing run over 15 minutes and on its dead-letter queue', () => {
    expect(alarmNames(synth)).toEqual(
      expect.arrayContaining(['AgentLedger-SealEpochs-Errors', 'AgentLedger-SealEpochs-Throttles', 'AgentLedger-SealEpochs-NotRunning', 'AgentLedger-SealEpochs-DeadLetters']),
    );
    workersTemplate(synth).hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'AgentLedger-SealEpochs-NotRunning',
      MetricName: 'Invocations',
      Period: 900,
      Statistic: 'Sum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      TreatMissingData: 'breaching',
    });
  });
});

describe('the queue workers of the real table (webhook fan-out and delivery, exports)', () => {
  const queueWorkers = workerList.filter((worker) => worker.trigger.kind === 'queue');

  it('alarm every queue’s dead letters, and each worker’s backlog beyond its run time and, for webhook retries, their delay', () => {
    expect(queueWorkers.map((worker) => worker.id).sort()).toEqual(['ExportFiles', 'WebhookDeliveries', 'WebhookFanout']);
    for (const name of ['events', 'deliveries', 'exports']) expect(alarmNamed(synth, `${name}-DeadLetters`), name).toMatchObject({ Threshold: 1 });
    for (const worker of queueWorkers) {
      const trigger = worker.trigger as Extract<WorkerSpec['trigger'], { kind: 'queue' }>;
      const delay = trigger.queue === 'deliveries' ? MAX_DELAY_SECONDS : 0;
      expect(alarmNamed(synth, `${worker.id}-${trigger.queue}-Backlog`), worker.id).toMatchObject({
        MetricName: 'ApproximateAgeOfOldestMessage',
        Threshold: (15 + Math.ceil((delay + worker.timeoutSeconds) / 60)) * 60,
      });
    }
  });

  it('run the exports worker with its memory and the delivery worker with its concurrency cap', () => {
    expect(resourceOf(workerFunction(synth, 'ExportFiles').function).Properties).toMatchObject({ MemorySize: 2048, Timeout: 900 });
    // Exports never take the account's Lambda concurrency: at most 2 runs at once (the least SQS allows).
    workersTemplate(synth).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: Match.anyValue(),
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    workersTemplate(synth).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: Match.anyValue(),
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 200 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});

describe('every worker kind', () => {
  const byKind = (kind: WorkerSpec['trigger']['kind']) => EVERY_KIND_WORKERS.find((worker) => worker.trigger.kind === kind)!;

  it('takes memory and reserved concurrency from its table entry', () => {
    const worker = byKind('schedule');
    expect(resourceOf(workerFunction(variant, worker.id).function).Properties).toMatchObject({
      MemorySize: worker.memorySize,
      ReservedConcurrentExecutions: worker.reservedConcurrency,
    });
    expect(resourceOf(workerFunction(variant, byKind('queue').id).function).Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('consumes a queue in batches with partial batch responses; the queue dead-letters after 5 receives and is alarmed', () => {
    const worker = byKind('queue');
    const trigger = worker.trigger as Extract<WorkerSpec['trigger'], { kind: 'queue' }>;
    const queue = variant.stack.queues.queues[trigger.queue];
    const mapping = Object.values(workersTemplate(variant).findResources('AWS::Lambda::EventSourceMapping')).find(
      (resource) => JSON.stringify(inRootTerms(variant.stack.workers, resource.Properties.EventSourceArn)) === JSON.stringify(arnOf(queue)),
    );
    expect(mapping?.Properties).toMatchObject({ BatchSize: trigger.batchSize, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(resourceOf(queue).Properties.RedrivePolicy.maxReceiveCount).toBe(MAX_RECEIVE_COUNT);
    // Six times the consumer's timeout, so a batch being processed never reappears to a second consumer.
    expect(resourceOf(queue).Properties.VisibilityTimeout).toBe(6 * worker.timeoutSeconds);
    expect(alarmNames(variant)).toEqual(expect.arrayContaining([`AgentLedger-${trigger.queue}-DeadLetters`, `AgentLedger-${worker.id}-${trigger.queue}-Backlog`]));
  });

  it('reads the table stream, new items of its itemTypes only, with partial batch responses, bisecting, bounded retries and an on-failure queue', () => {
    const worker = byKind('stream');
    const trigger = worker.trigger as Extract<WorkerSpec['trigger'], { kind: 'stream' }>;
    const deadLetters = variant.stack.workers.deadLetterQueues[worker.id]!;
    workersTemplate(variant).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: trigger.batchSize,
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: [...trigger.itemTypes] } } } }) },
        ],
      },
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: arnOf(deadLetters) } },
    });
    expect(alarmNames(variant)).toEqual(expect.arrayContaining([`AgentLedger-${worker.id}-DeadLetters`, `AgentLedger-${worker.id}-IteratorAge`]));
  });

  it('deploys the events outbox forwarder (ForwardEvents) as a stream worker with its alarms', () => {
    const forwarder = workerList.find((worker) => worker.id === 'ForwardEvents');
    expect(forwarder?.trigger.kind).toBe('stream');
    expect(synth.stack.workers.deadLetterQueues.ForwardEvents).toBeDefined();
    expect(alarmNames(synth)).toEqual(
      expect.arrayContaining(['DeadLetters', 'IteratorAge', 'Errors', 'Throttles'].map((alarm) => `AgentLedger-ForwardEvents-${alarm}`)),
    );
  });

  it('alarms every dead-letter queue of the stack, and every worker function on errors and throttles', () => {
    const names = alarmNames(variant);
    const deadLetterQueues = [...Object.keys(variant.stack.queues.deadLetterQueues), ...Object.keys(variant.stack.workers.deadLetterQueues)];
    expect(deadLetterQueues.length).toBe(5);
    for (const name of deadLetterQueues) expect(names, name).toContain(`AgentLedger-${name}-DeadLetters`);
    for (const worker of EVERY_KIND_WORKERS) {
      expect(names).toEqual(expect.arrayContaining([`AgentLedger-${worker.id}-Errors`, `AgentLedger-${worker.id}-Throttles`]));
    }
  });
});

describe('template sizes', () => {
  it(`keeps every template of the stack at or under ${TEMPLATE_RESOURCE_LIMIT} resources`, () => {
    expectWithinLimits(synth);
    expect(sizes(synth).length).toBeGreaterThan(2);
  });

  it('keeps the bound with three times as many routes, new areas among them, and a worker of each kind', () => {
    expect(GROWN_ROUTES.length).toBeGreaterThan(3 * routeList.length - 20);
    expectWithinLimits(grown);
    const deployed = GROWN_ROUTES.filter((route) => route.localOnly !== true).length;
    expect(grown.stack.api.routes).toHaveLength(deployed);
  });

  it('grows the root stack by nothing per route', () => {
    const root = (s: Synthesized) => sizes(s).find((size) => size.stack === s.stack.node.path)!.resources;
    // The grown table adds new areas (a nested stack resource each) and nothing else to the root.
    const newAreas = routeAreas(GROWN_ROUTES).length - routeAreas(routeList.filter((route) => route.localOnly !== true)).length;
    expect(root(grown) - root(synth)).toBe(newAreas);
  });
});

describe('route areas', () => {
  it('puts the audit, exports and webhooks routes of the real table into nested stacks of their own', () => {
    for (const [area, ids] of [
      ['RoutesAudit', ['AuditQuery']],
      ['RoutesExports', ['CreateExport', 'ListExports', 'GetExport', 'DownloadExport']],
      ['RoutesWebhooks', ['RegisterWebhook', 'ListWebhookDeliveries', 'RedeliverWebhookDelivery']],
    ] as const) {
      for (const id of ids) {
        const stack = Stack.of(synth.stack.api.routes.find((route) => route.spec.id === id)!.function);
        expect(NestedStack.isNestedStack(stack), id).toBe(true);
        expect(stack.node.id, id).toBe(area);
      }
    }
  });

  it("puts a route into the stack of its handler's directory, new areas into new stacks", () => {
    const areas = routeAreas(GROWN_ROUTES);
    const stackOf = (id: string) => areas.find((area) => area.routes.some((route) => route.id === id))!.id;
    expect(stackOf('SubmitOperation')).toBe('RoutesOperations');
    expect(stackOf('RegisterAgent')).toBe('RoutesAgents');
    expect(stackOf('Grownexports0')).toBe('RoutesExports');
    expect(stackOf('Grownconsole0')).toBe('RoutesConsole');
    const webhooks = GROWN_ROUTES.filter((route) => areaOf(route) === 'webhooks');
    expect(stackOf(webhooks[MAX_ROUTES_PER_STACK - 1]!.id)).toBe('RoutesWebhooks');
    expect(stackOf(webhooks[MAX_ROUTES_PER_STACK]!.id)).toBe('RoutesWebhooks2');
    for (const area of areas) {
      expect(area.routes.length, area.id).toBeLessThanOrEqual(MAX_ROUTES_PER_STACK);
      expect(new Set(area.routes.map(areaOf)).size, area.id).toBe(1);
    }
  });

  it('cuts an area that outgrows one stack at a fixed size, so earlier routes keep their stack', () => {
    const agents = GROWN_ROUTES.filter((route) => areaOf(route) === 'agents');
    const areas = routeAreas(GROWN_ROUTES).filter((area) => area.id.startsWith('RoutesAgents'));
    // One stack per MAX_ROUTES_PER_STACK routes, however many real agent routes there are.
    const stacks = Math.ceil(agents.length / MAX_ROUTES_PER_STACK);
    expect(stacks).toBeGreaterThan(1);
    expect(areas.map((area) => area.id)).toEqual(Array.from({ length: stacks }, (_, i) => (i === 0 ? 'RoutesAgents' : `RoutesAgents${i + 1}`)));
    expect(areas.flatMap((area) => area.routes)).toEqual(agents);
    expect(areas[0]!.routes).toEqual(agents.slice(0, MAX_ROUTES_PER_STACK));
  });
});
