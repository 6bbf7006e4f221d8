/**
 * Alarms (docs/RUNBOOK.md): one SNS topic every alarm notifies, optionally mailed to context
 * `alarmEmail`, and the alarms themselves. Each alarm is named `<stack>-<what>` and its
 * description points at its runbook entry, so the notification says what broke and where to
 * read what to do.
 *
 * Function alarms (errors, throttles) are made next to their function, in the function's own
 * nested stack; the dashboard finds every alarm by its name (no cross-stack reference).
 */
import { Duration, NestedStack, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Construct, type IConstruct } from 'constructs';
import { METRICS_NAMESPACE, MetricNames } from '../lambdas/metric-names.js';
import { SERVICE_NAME } from './environment.js';
import type { LedgerFunction } from './function.js';

const FIVE_MINUTES = Duration.minutes(5);

/** A metric of the service's own (lambdas/metrics.ts), with the `service` dimension Powertools adds. */
export function serviceMetric(name: string, options: { statistic: string; period?: Duration; dimensions?: Record<string, string>; label?: string }): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME, ...options.dimensions },
    statistic: options.statistic,
    period: options.period ?? FIVE_MINUTES,
    ...(options.label ? { label: options.label } : {}),
  });
}

/** The route id whose latency the submit latency alarm watches (lambdas/routes/route-table/operations.ts). */
export const SUBMIT_ROUTE_ID = 'SubmitOperation';

/**
 * Thresholds, chosen for a service whose hot path answers in tens of milliseconds
 * (docs/ARCHITECTURE.md, Performance budget) and whose background work runs every 5 minutes.
 */
export const THRESHOLDS = {
  /** Percent of API requests answered 5xx in 5 minutes, once at least `minRequests` arrived. */
  api5xxPercent: 5,
  minRequests: 20,
  /** p99 of accepted submissions, sustained over 15 minutes. */
  submitP99Ms: 1000,
  /** Messages waiting this long (beyond their delay and their worker's run time) mean the queue's worker is not keeping up. */
  queueAgeMinutes: 15,
  /** Failed webhook delivery attempts in 15 minutes: one receiver down stays below, a broken egress does not. */
  webhookAttemptFailures15Min: 50,
  /**
   * Webhook deliveries given up (after about a day of retries) in one hour. Each one is also a
   * message in the deliveries dead-letter queue (its own alarm); this one says many gave up at once.
   */
  webhookDeliveriesFailedHour: 10,
} as const;

export interface AlarmDefinition {
  /** Last part of the alarm name (`<stack>-<name>`), also its runbook entry (docs/RUNBOOK.md). */
  readonly name: string;
  readonly description: string;
  readonly metric: IMetric;
  readonly threshold: number;
  readonly comparison?: ComparisonOperator;
  readonly evaluationPeriods?: number;
  /** Missing data: no traffic is healthy unless said otherwise. */
  readonly missing?: TreatMissingData;
}

export interface LedgerAlarmsProps {
  /** Context `alarmEmail`: subscribed to the topic (the address confirms the subscription once). */
  readonly email: string | undefined;
}

export class LedgerAlarms extends Construct {
  readonly topic: Topic;
  /** Every alarm's name, for the dashboard. */
  private readonly names: string[] = [];

  constructor(scope: Construct, id: string, props: LedgerAlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    // SNS encrypts the notifications at rest with a key CloudWatch may use: an AWS managed
    // key's policy cannot grant CloudWatch, so alarms could not publish to the topic.
    const key = new Key(this, 'TopicKey', {
      description: 'agent-ledger: encrypts alarm notifications',
      enableKeyRotation: true,
      alias: `alias/${stackName}/alarm-topic`,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.topic = new Topic(this, 'Topic', { displayName: `${stackName} alarms`, masterKey: key, enforceSSL: true });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccount',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }

  /** An alarm in `scope`'s stack, named `<root stack>-<name>`, notifying the topic on ALARM and on OK. */
  alarm(scope: Construct, definition: AlarmDefinition): Alarm {
    const name = `${rootStack(this).stackName}-${definition.name}`;
    const alarm = new Alarm(scope, `${definition.name}Alarm`, {
      alarmName: name,
      alarmDescription: `${definition.description} Runbook: docs/RUNBOOK.md, ${runbookEntry(definition.name)}.`,
      metric: definition.metric,
      threshold: definition.threshold,
      comparisonOperator: definition.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: definition.evaluationPeriods ?? 1,
      treatMissingData: definition.missing ?? TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.names.push(name);
    return alarm;
  }

  /** Errors (crashes, timeouts) and throttles of one function, in the function's stack. */
  watchFunction(fn: LedgerFunction, id: string): void {
    const lambda = fn.function;
    this.alarm(fn, {
      name: `${id}-Errors`,
      description: `Lambda function ${id} failed an invocation (an unhandled error or a timeout).`,
      metric: lambda.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
    });
    this.alarm(fn, {
      name: `${id}-Throttles`,
      description: `Lambda throttled invocations of ${id}: the account's (or the function's reserved) concurrency is exhausted.`,
      metric: lambda.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
      threshold: 1,
    });
  }

  /** Any message in a dead-letter queue: work that failed every attempt and waits for an operator. */
  watchDeadLetters(scope: Construct, name: string, queue: IQueue, what: string): void {
    this.alarm(scope, {
      name: `${name}-DeadLetters`,
      description: `${what} is waiting in the dead-letter queue ${name}.`,
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      threshold: 1,
    });
  }

  /**
   * A queue whose oldest message waits too long: its worker is failing or not keeping up.
   * `expected` is how old a message may get in normal work and is added to the threshold: the
   * age counts from the send, so a message's delay and the time its consumer holds it (in
   * flight, up to the worker's timeout) are part of it.
   */
  watchBacklog(scope: Construct, name: string, queue: IQueue, expected: Duration): void {
    const minutes = THRESHOLDS.queueAgeMinutes + Math.ceil(expected.toSeconds() / 60);
    this.alarm(scope, {
      name: `${name}-Backlog`,
      description: `The oldest message of the ${name} queue is ${minutes} minutes old or more (${THRESHOLDS.queueAgeMinutes} beyond its delays and its worker's run time).`,
      metric: queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
      threshold: minutes * 60,
    });
  }

  /** A scheduled worker that did not run for 15 minutes (three 5-minute schedule periods). */
  watchSchedule(fn: LedgerFunction, id: string): void {
    this.alarm(fn, {
      name: `${id}-NotRunning`,
      description: `${id} has not been invoked for 15 minutes although its schedule runs it every 5.`,
      metric: fn.function.metricInvocations({ period: Duration.minutes(15), statistic: 'Sum' }),
      threshold: 1,
      comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
      // No data at all is exactly the failure this alarm is for.
      missing: TreatMissingData.BREACHING,
    });
  }

  /** The service-wide alarms: API errors and latency, table, KMS and webhook health. */
  watchService(props: { api: HttpApi; table: Table }): void {
    const requests = props.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
    const serverErrors = props.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
    this.alarm(this, {
      name: 'Api-5xxRate',
      description: `More than ${THRESHOLDS.api5xxPercent}% of API requests were answered with a 5xx in 5 minutes.`,
      metric: new MathExpression({
        expression: `IF(requests >= ${THRESHOLDS.minRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { requests, errors: serverErrors },
        period: FIVE_MINUTES,
        label: 'API 5xx %',
      }),
      threshold: THRESHOLDS.api5xxPercent,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    this.alarm(this, {
      name: 'Submit-LatencyP99',
      description: `The p99 latency of accepted submissions (POST /v1/operations) stayed above ${THRESHOLDS.submitP99Ms} ms for 15 minutes.`,
      metric: serviceMetric(MetricNames.RequestLatency, { statistic: 'p99', dimensions: { route: SUBMIT_ROUTE_ID, status: '200' } }),
      threshold: THRESHOLDS.submitP99Ms,
      comparison: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
    });
    this.alarm(this, {
      name: 'Table-Throttles',
      description: 'DynamoDB throttled requests to the ledger table in two 5-minute periods in a row.',
      metric: props.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period: FIVE_MINUTES }),
      threshold: 1,
      evaluationPeriods: 2,
    });
    this.alarm(this, {
      name: 'Table-SystemErrors',
      description: 'DynamoDB answered requests to the ledger table with internal server errors.',
      metric: props.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period: FIVE_MINUTES }),
      threshold: 1,
    });
    this.alarm(this, {
      name: 'Kms-Throttles',
      description: 'KMS refused calls as throttled after the SDK retried them (receipt signing, webhook secrets or audit cursors).',
      metric: serviceMetric(MetricNames.KmsThrottles, { statistic: 'Sum' }),
      threshold: 1,
    });
    this.alarm(this, {
      name: 'Webhooks-AttemptFailures',
      description: `${THRESHOLDS.webhookAttemptFailures15Min} or more webhook delivery attempts failed in 15 minutes.`,
      metric: serviceMetric(MetricNames.WebhookAttempts, { statistic: 'Sum', period: Duration.minutes(15), dimensions: { outcome: 'failed' } }),
      threshold: THRESHOLDS.webhookAttemptFailures15Min,
    });
    this.alarm(this, {
      name: 'Webhooks-DeliveriesFailed',
      description: `${THRESHOLDS.webhookDeliveriesFailedHour} or more webhook deliveries were given up after their last attempt in one hour.`,
      metric: serviceMetric(MetricNames.WebhookDeliveriesFailed, { statistic: 'Sum', period: Duration.hours(1) }),
      threshold: THRESHOLDS.webhookDeliveriesFailedHour,
    });
  }

  /** Every alarm made so far, by ARN built from its name (scope: the dashboard's stack). */
  all(scope: Construct): IAlarm[] {
    return this.names.map((name, index) => Alarm.fromAlarmName(scope, `Alarm${index}`, name));
  }
}

/** The DynamoDB operations the store calls (lambdas/store/dynamo.ts), whose throttles and errors are watched. */
export const TABLE_OPERATIONS: readonly Operation[] = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

/** Alarm kinds made once per function, queue or worker; docs/RUNBOOK.md has one entry per kind. */
const PER_RESOURCE_KINDS = ['Errors', 'Throttles', 'DeadLetters', 'Backlog', 'NotRunning', 'IteratorAge'];

/** The docs/RUNBOOK.md entry of an alarm name (`"Api-5xxRate"`, or `"<name>-Errors"` for every function's). */
export function runbookEntry(name: string): string {
  const kind = name.slice(name.lastIndexOf('-') + 1);
  return PER_RESOURCE_KINDS.includes(kind) ? `"<name>-${kind}"` : `"${name}"`;
}

/** The top-level stack of a construct (a nested stack's parent, up to the root). */
export function rootStack(scope: IConstruct): Stack {
  let stack = Stack.of(scope);
  while (NestedStack.isNestedStack(stack) && stack.nestedStackParent) stack = stack.nestedStackParent;
  return stack;
}
