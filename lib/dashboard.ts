/**
 * The operations dashboard (docs/RUNBOOK.md): the hot path's rate and latency, epochs sealed,
 * queue ages and dead letters, the events outbox's lag, API, table and KMS health, and the
 * state of every alarm.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, MetricNames } from '../lambdas/metric-names.js';
import { SUBMIT_ROUTE_ID, TABLE_OPERATIONS, serviceMetric, type LedgerAlarms } from './alarms.js';
import { SERVICE_NAME } from './environment.js';

/** CloudWatch shows at most this many alarms in one alarm status widget. */
const ALARMS_PER_WIDGET = 100;
const MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

export interface LedgerDashboardProps {
  readonly api: HttpApi;
  readonly table: Table;
  /** Work queues and dead-letter queues by a display name. */
  readonly queues: Readonly<Record<string, IQueue>>;
  readonly deadLetterQueues: Readonly<Record<string, IQueue>>;
  /** Stream workers' lag behind the table by worker id (the events outbox, docs/EVENTS.md). */
  readonly streamLag: Readonly<Record<string, IMetric>>;
  readonly alarms: LedgerAlarms;
}

export class LedgerDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: LedgerDashboardProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const wide = { width: 12, height: 6 } as const;
    const third = { width: 8, height: 6 } as const;
    const latency = (statistic: string) =>
      serviceMetric(MetricNames.RequestLatency, { statistic, period: MINUTE, dimensions: { route: SUBMIT_ROUTE_ID, status: '200' }, label: statistic });

    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown:
            `# ${stackName}\nSubmissions, sealing, queues and alarms of agent-ledger. What each alarm means and what to do: ` +
            'docs/RUNBOOK.md.',
          width: 24,
          height: 2,
        }),
      ],
      [
        new GraphWidget({
          title: 'Submissions per minute, by outcome (ACCEPTED or the docs/API.md §7 code)',
          left: [
            new MathExpression({
              expression: `SEARCH('{${METRICS_NAMESPACE},outcome,service} MetricName="${MetricNames.Submissions}" service="${SERVICE_NAME}"', 'Sum', 60)`,
              usingMetrics: {},
              label: '',
              period: MINUTE,
            }),
          ],
          ...wide,
        }),
        new GraphWidget({
          title: 'Accepted submission latency (ms, in the handler)',
          left: ['p50', 'p90', 'p99'].map(latency),
          ...wide,
        }),
      ],
      [
        new GraphWidget({
          title: 'Epochs and operations sealed per 5 minutes',
          left: [serviceMetric(MetricNames.EpochsSealed, { statistic: 'Sum', label: 'epochs' })],
          right: [serviceMetric(MetricNames.OperationsSealed, { statistic: 'Sum', label: 'operations' })],
          ...wide,
        }),
        new GraphWidget({
          title: 'Age of the oldest message (s) and dead letters waiting',
          left: Object.entries(props.queues).map(([name, queue]) =>
            queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: MINUTE, label: name }),
          ),
          right: Object.entries(props.deadLetterQueues).map(([name, queue]) =>
            queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: MINUTE, label: `${name} dead letters` }),
          ),
          ...wide,
        }),
      ],
      [
        new GraphWidget({
          title: 'API requests, 4xx and 5xx per minute',
          left: [
            props.api.metricCount({ statistic: 'Sum', period: MINUTE, label: 'requests' }),
            props.api.metricClientError({ statistic: 'Sum', period: MINUTE, label: '4xx' }),
            props.api.metricServerError({ statistic: 'Sum', period: MINUTE, label: '5xx' }),
          ],
          ...wide,
        }),
        new GraphWidget({
          title: 'Events outbox: how far the stream workers are behind the table (ms)',
          left: Object.entries(props.streamLag).map(([name, metric]) => labelled(metric, name)),
          ...wide,
        }),
      ],
      // The table's two metrics are sums over the same operations, so each needs a graph of its own.
      [
        new GraphWidget({
          title: 'Table: throttled requests',
          left: [labelled(props.table.metricThrottledRequestsForOperations({ operations: [...TABLE_OPERATIONS], period: FIVE_MINUTES }), 'throttled')],
          ...third,
        }),
        new GraphWidget({
          title: 'Table: system errors',
          left: [labelled(props.table.metricSystemErrorsForOperations({ operations: [...TABLE_OPERATIONS], period: FIVE_MINUTES }), 'system errors')],
          ...third,
        }),
        new GraphWidget({
          title: 'KMS throttles, failed webhook attempts and deliveries',
          left: [
            serviceMetric(MetricNames.KmsThrottles, { statistic: 'Sum', label: 'KMS throttled' }),
            serviceMetric(MetricNames.WebhookAttempts, { statistic: 'Sum', dimensions: { outcome: 'failed' }, label: 'webhook attempts failed' }),
            serviceMetric(MetricNames.WebhookDeliveriesFailed, { statistic: 'Sum', label: 'webhook deliveries failed' }),
          ],
          ...third,
        }),
      ],
    ];
    const alarms = props.alarms.all(this);
    for (let start = 0; start < alarms.length; start += ALARMS_PER_WIDGET) {
      rows.push([new AlarmStatusWidget({ title: 'Alarms', alarms: alarms.slice(start, start + ALARMS_PER_WIDGET), width: 24, height: 8 })]);
    }

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: stackName, widgets: rows });
  }
}

/** A metric (or a metric math sum, such as the table's per-operation metrics) with a label of its own. */
function labelled(metric: IMetric, label: string): IMetric {
  return metric instanceof MathExpression || metric instanceof Metric ? metric.with({ label }) : metric;
}
